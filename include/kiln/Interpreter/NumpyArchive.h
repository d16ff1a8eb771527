//===- NumpyArchive.h - host tensors as .npy and .npz files -----*- C++ -*-===//
//
// This file declares the writers and the reader of NumPy's array files, so
// that what kiln computes can be read with numpy.load and what numpy.savez
// writes can be a graph's parameters: `.npy` (one array: a magic string,
// a header that is a Python dict literal, the elements little-endian) and
// `.npz` (a stored, uncompressed zip of `.npy` files). Element types NumPy
// lacks are widened: bf16 and the float8 types to float32, i2/i4 (u2/u4)
// to int8 (uint8).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_INTERPRETER_NUMPYARCHIVE_H
#define KILN_INTERPRETER_NUMPYARCHIVE_H

#include "kiln/Interpreter/HostTensor.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kiln::interp {

/// The bytes of a `.npy` file holding `tensor`.
std::string encodeNpy(const HostTensor &tensor);

/// Writes `arrays` (name, tensor) as a `.npz` archive at `path`, or one
/// `.npy` file when `path` ends in `.npy` and there is one array. The file
/// is written to a temporary name and renamed, so it is whole or absent.
llvm::Error
writeNumpyFile(llvm::StringRef path,
               llvm::ArrayRef<std::pair<std::string, HostTensor>> arrays);

/// One array of a NumPy file as read: its type code (`<f4`, `|b1`, ...),
/// its shape and its elements' bytes, little-endian and row-major.
struct NumpyArray {
  std::string descr;
  std::vector<int64_t> shape;
  std::string bytes;
};

/// Reads a `.npy` file (one array, named after the file without `.npy`) or a
/// `.npz` archive of stored members (numpy.savez's, zip64 included), in
/// the archive's order. Compressed members (numpy.savez_compressed) and
/// Fortran order are refused with an error that names them.
llvm::Expected<std::vector<std::pair<std::string, NumpyArray>>>
readNumpyFile(llvm::StringRef path);

/// `array`'s elements as a tensor of `type`: floats of any width into any
/// float type (rounded), integers and booleans into integer types (wrapped);
/// an error when the shapes differ or the kinds do not convert.
llvm::Expected<HostTensor> toHostTensor(const NumpyArray &array,
                                        mlir::RankedTensorType type);

} // namespace kiln::interp

#endif // KILN_INTERPRETER_NUMPYARCHIVE_H
