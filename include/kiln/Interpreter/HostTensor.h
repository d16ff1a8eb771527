//===- HostTensor.h - a tensor's value in host memory -----------*- C++ -*-===//
//
// This file declares the values the reference evaluator computes with: a
// tensor of any kiln element type held in the widest host type of its kind
// (int64 for integers, predicates and quantized storage, double for floats,
// complex<double> for complex numbers), each element always a value of its
// element type (rounded or wrapped after every op), so that computing in
// the wide type and rounding gives what the narrow type computes.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_INTERPRETER_HOSTTENSOR_H
#define KILN_INTERPRETER_HOSTTENSOR_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

#include <complex>
#include <string>
#include <cstdint>
#include <vector>

namespace kiln::interp {

/// How a kiln element type's values are held.
enum class ElementKind { Integer, Float, Complex, Token };

/// The kind that holds `element`'s values; quantized types hold their
/// stored integers.
ElementKind kindOf(mlir::Type element);

/// The integer type that holds `element`'s values: itself, or a quantized
/// type's storage type (signless for signed storage).
mlir::IntegerType storageIntegerType(mlir::Type element);

/// Whether integers of `element` read as unsigned: `ui*` types, `i1`, and
/// quantized types with unsigned storage.
bool isUnsignedInteger(mlir::Type element);

/// `value` truncated to `element`'s width and extended back (sign or zero),
/// as the narrow type wraps.
int64_t wrapInteger(uint64_t value, mlir::Type element);

/// `value` rounded to the nearest value of the float type `element` (ties to
/// even; overflow to infinity, or to NaN in formats without infinities).
double roundToFloat(double value, mlir::Type element);

/// A tensor's elements, row-major, in the member that its kind uses.
struct HostTensor {
  mlir::Type type; // a RankedTensorType, or a token
  ElementKind kind = ElementKind::Token;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  std::vector<std::complex<double>> complexes;

  HostTensor() = default;
  /// Zero-filled elements of `type` (a ranked tensor or a token).
  explicit HostTensor(mlir::Type type);

  mlir::RankedTensorType tensorType() const {
    return mlir::cast<mlir::RankedTensorType>(type);
  }
  mlir::Type elementType() const { return tensorType().getElementType(); }
  llvm::ArrayRef<int64_t> shape() const { return tensorType().getShape(); }
  int64_t size() const;

  /// The constant's elements; fails for a type the evaluator cannot hold.
  static llvm::FailureOr<HostTensor> fromAttr(mlir::DenseElementsAttr value);
  /// The elements as a constant of `type`.
  mlir::DenseElementsAttr toAttr() const;

  /// Element `i` as a double (integers converted, complex: the real part).
  double asDouble(int64_t i) const;
  /// Element `i` as an index: integers exactly (asDouble rounds those past
  /// 2^53, and 2^63-5 to 2^63, which no int64_t holds), unsigned ones past
  /// INT64_MAX saturated to it; floats saturated.
  int64_t asIndex(int64_t i) const;
  /// Element `i`'s bits in its element type's width.
  llvm::APInt bitsAt(int64_t i) const;
  /// Sets element `i` from bits of its element type's width.
  void setBits(int64_t i, const llvm::APInt &bits);
  /// Copies element `from` of `source` (same element type) to `to`.
  void copyElement(const HostTensor &source, int64_t from, int64_t to) {
    switch (kind) {
    case ElementKind::Integer:
      ints[to] = source.ints[from];
      break;
    case ElementKind::Float:
      floats[to] = source.floats[from];
      break;
    case ElementKind::Complex:
      complexes[to] = source.complexes[from];
      break;
    case ElementKind::Token:
      break;
    }
  }
  /// Resizes for `type` (same element type), keeping the kind.
  void reshapeTo(mlir::Type newType) { type = newType; }
};

/// Tensors written as a list of MLIR literals, `[dense<1> : tensor<2xi32>,
/// dense<[1.5, 2.0]> : tensor<2xf32>]` (StableHLO's interpreter's `--args`);
/// an error message when `text` is not one.
llvm::FailureOr<std::vector<HostTensor>>
parseTensorList(llvm::StringRef text, mlir::MLIRContext *context,
                std::string &error);

/// `value` in the shortest of fixed or scientific notation, 6 significant
/// digits (printf's %g), as the evaluator's reports print numbers.
std::string formatNumber(double value);

/// Row-major strides of `shape`.
llvm::SmallVector<int64_t> stridesOf(llvm::ArrayRef<int64_t> shape);

/// Steps `index` through `shape` in row-major order; false after the last.
bool nextIndex(llvm::MutableArrayRef<int64_t> index,
               llvm::ArrayRef<int64_t> shape);

} // namespace kiln::interp

#endif // KILN_INTERPRETER_HOSTTENSOR_H
