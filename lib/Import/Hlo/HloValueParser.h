//===- HloValueParser.h - shapes, literals and attribute values -*- C++ -*-===//
//
// This file declares the parsers for the typed pieces of HLO text: shapes
// (with layouts and tuples), literals, and each kind of attribute value.
// They run in the importer's second phase, at positions that the first phase
// recorded.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_IMPORT_HLO_HLOVALUEPARSER_H
#define KILN_LIB_IMPORT_HLO_HLOVALUEPARSER_H

#include "HloModuleText.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringMap.h"

#include <optional>

namespace kiln {
namespace hlo {

/// One node of a shape's tuple tree: an array (a single leaf) or a tuple of
/// child nodes, covering leaves [leafBegin, leafEnd).
struct ShapeNode {
  bool isTuple = false;
  unsigned leafBegin = 0;
  unsigned leafEnd = 0;
  llvm::SmallVector<unsigned, 0> children; ///< node indices
};

/// An HLO shape, flattened: tuples become their leaves in order. The tuple
/// tree is kept (node 0 is the whole shape) so that get-tuple-element and
/// `%t#N` can pick the leaves of any element, however deeply nested.
struct Shape {
  llvm::SmallVector<mlir::Type, 1> leaves;
  /// Per leaf: the layout text (e.g. `{2,3,1,0}`) when it is not the default
  /// descending one, else null.
  llvm::SmallVector<mlir::StringAttr, 1> layouts;
  /// Inline for the one node of an array shape: the importer copies the
  /// shape of every instruction out of its cache.
  llvm::SmallVector<ShapeNode, 1> nodes;

  const ShapeNode &root() const { return nodes[0]; }
  bool isTuple() const { return !nodes.empty() && nodes[0].isTuple; }
  /// Whether the shape is what a flat list of results gives back when
  /// exported: a tuple of two or more arrays, or the empty tuple `()`.
  /// Any other tuple's structure must be kept (`kiln.result_tuple`).
  bool isFlatTuple() const {
    return isTuple() && (leaves.size() >= 2 || leaves.empty()) &&
           nodes.size() == leaves.size() + 1;
  }
  bool hasNonDefaultLayout() const {
    for (mlir::StringAttr layout : layouts)
      if (layout)
        return true;
    return false;
  }
};

/// The tuple structure of `shape` (or of its node `node`) with `_` for each
/// array leaf, e.g. `(_,(_,_))`, or `_` for an array shape.
std::string describeTupleStructure(const Shape &shape, unsigned node = 0);

/// The parts of `metadata={...}` that kiln keeps.
struct Metadata {
  std::string opName;
  std::string sourceFile;
  int64_t sourceLine = 0;
  int64_t sourceColumn = 0;
  int64_t stackFrameId = 0;

  /// The text field that `key` names in the dump (`op_name`,
  /// `source_file`), or null; with numberField, the one place that says
  /// which fields are kept: the others (op_type, source_end_line,
  /// deduplicated_name, ...) never change what is computed.
  std::string *textField(llvm::StringRef key) {
    return key == "op_name"       ? &opName
           : key == "source_file" ? &sourceFile
                                  : nullptr;
  }
  /// The integer field that `key` names (`source_line`, `source_column`,
  /// `stack_frame_id`), or null.
  int64_t *numberField(llvm::StringRef key) {
    return key == "source_line"      ? &sourceLine
           : key == "source_column"  ? &sourceColumn
           : key == "stack_frame_id" ? &stackFrameId
                                     : nullptr;
  }
};

/// Reads `metadata={...}` byte by byte where it is spelled plainly, as XLA
/// writes it: fields apart by single spaces, strings without escapes,
/// integers, words. About a quarter of a dump's instructions carry metadata
/// spelled as no instruction before them, and reading those with tokens
/// took a twelfth of the import.
/// Returns false for anything else (a comment, an escape, a nested group,
/// a stray byte), leaving `metadata` as it was: then
/// ValueParser::parseMetadata reads it, and reports what is wrong.
bool parsePlainMetadata(llvm::StringRef group, Metadata &metadata);

/// Iota replica-group lists and tile assignments: `[2,64]<=[4,32]T(1,0)`.
struct IotaList {
  llvm::SmallVector<int64_t, 2> dims;
  llvm::SmallVector<int64_t, 2> reshape;
  llvm::SmallVector<int64_t, 2> transpose;
};

class ValueParser {
public:
  ValueParser(TokenCursor &cursor, mlir::MLIRContext *context);

  mlir::MLIRContext *getContext() const { return context; }
  TokenCursor &getCursor() { return cursor; }

  /// `f32[2,3]{1,0}`, `(s32[], token[])`, `pred[]`.
  mlir::LogicalResult parseShape(Shape &shape);
  /// Parses the literal of `constant(...)` between `begin` and `end` for
  /// `type`. An elided literal (`{...}`) sets `elided` and no value.
  mlir::LogicalResult parseLiteral(mlir::RankedTensorType type,
                                   const char *begin, const char *end,
                                   mlir::DenseElementsAttr &value,
                                   bool &elided);
  /// One leaf of a literal that may be a tuple: its value, whether the dump
  /// elided it, and no value at all for a token.
  struct LiteralLeaf {
    mlir::DenseElementsAttr value;
    bool elided = false;
  };
  /// Parses the literal of `constant(...)` for any `shape`, tuples (`(1,
  /// {2, 3})`, nested) and tokens included: one leaf per leaf of the shape.
  mlir::LogicalResult parseLiteralLeaves(const Shape &shape, const char *begin,
                                         const char *end,
                                         llvm::SmallVectorImpl<LiteralLeaf> &leaves);

  mlir::LogicalResult parseInt(int64_t &value);
  mlir::LogicalResult parseBool(bool &value);
  mlir::LogicalResult parseFloat(double &value);
  /// A quoted string (unescaped) or a bare word.
  mlir::LogicalResult parseText(std::string &value);
  /// `{1,2,3}` or `{}`.
  mlir::LogicalResult parseIntList(llvm::SmallVectorImpl<int64_t> &values);
  /// `{default,high}` and other word lists.
  mlir::LogicalResult parseWordList(llvm::SmallVectorImpl<std::string> &words);
  /// Explicit `{{0,1},{2,3}}` or iota `[2,64]<=[128]` replica groups, or
  /// `{{0,1},{1,2}}` source-target pairs, as a [rows x columns] i64 tensor.
  mlir::LogicalResult parseIntMatrix(mlir::DenseIntElementsAttr &matrix,
                                     llvm::StringRef what);
  /// `{[0:2], [1:8:2]}`.
  mlir::LogicalResult parseSliceSpec(llvm::SmallVectorImpl<int64_t> &starts,
                                     llvm::SmallVectorImpl<int64_t> &limits,
                                     llvm::SmallVectorImpl<int64_t> &strides);
  /// `0_0x1_2_1`: low_high[_interior] per dimension.
  mlir::LogicalResult
  parsePaddingSpec(llvm::SmallVectorImpl<int64_t> &low,
                   llvm::SmallVectorImpl<int64_t> &high,
                   llvm::SmallVectorImpl<int64_t> &interior);
  /// `{size=2x2 stride=1x1 pad=0_0x0_0 lhs_dilate=1x1 rhs_dilate=1x1}`;
  /// missing fields get HLO's defaults.
  struct Window {
    llvm::SmallVector<int64_t, 4> size, stride, padLow, padHigh, baseDilation,
        windowDilation;
    /// `rhs_reversal=1x0` (convolution only); empty when not given.
    llvm::SmallVector<bool, 4> reversal;
  };
  mlir::LogicalResult parseWindow(Window &window);
  /// A convolution's `dim_labels=b01f_01io->b01f`: which dimension of the
  /// input, kernel and output is the batch (b), the feature (f; the kernel's
  /// input i and output o features) and each spatial dimension (digits).
  struct ConvDimLabels {
    int64_t inputBatch = 0, inputFeature = 0, kernelInputFeature = 0,
            kernelOutputFeature = 0, outputBatch = 0, outputFeature = 0;
    llvm::SmallVector<int64_t, 3> inputSpatial, kernelSpatial, outputSpatial;
  };
  mlir::LogicalResult parseConvDimLabels(ConvDimLabels &labels);
  /// `{key="value", key=word}`.
  mlir::LogicalResult parseFrontendAttributes(mlir::DictionaryAttr &dict);
  /// `{op_name="..." source_file="..." source_line=N stack_frame_id=N ...}`.
  mlir::LogicalResult parseMetadata(Metadata &metadata);
  /// A `[d0,d1]<=[r0,r1]T(p0,p1)` iota list, expanded row-major.
  mlir::LogicalResult parseIotaList(IotaList &iota);

  /// Returns the kiln type of an HLO element type name, or null.
  mlir::Type getElementType(llvm::StringRef name);

private:
  mlir::FailureOr<unsigned> parseShapeInto(Shape &shape);
  mlir::LogicalResult verifyLayout(llvm::StringRef text, size_t rank,
                                   const char *loc);
  mlir::LogicalResult parseXSeparated(llvm::StringRef word,
                                      llvm::SmallVectorImpl<int64_t> &values);
  mlir::LogicalResult parseLiteralElements(llvm::ArrayRef<int64_t> dims,
                                           size_t depth, bool isComplex,
                                           llvm::SmallVectorImpl<Token> &words);

  mlir::LogicalResult parseLiteralNode(const Shape &shape, unsigned node,
                                       llvm::SmallVectorImpl<LiteralLeaf> &leaves);

  static constexpr unsigned kMaxTupleDepth = 256;
  /// The highest rank of an array shape. XLA's own shapes stay far below
  /// it; without a bound, a malformed dump with a rank of 100,000 would make
  /// every later step quadratic.
public:
  static constexpr unsigned kMaxRank = 64;

private:
  /// More device ids than any cluster has.
  static constexpr int64_t kMaxIotaElements = 1 << 24;

  TokenCursor &cursor;
  mlir::MLIRContext *context;
  llvm::StringMap<mlir::Type> elementTypes;
  unsigned tupleDepth = 0;
};

/// Expands an iota list into its values.
llvm::SmallVector<int64_t> expandIotaList(const IotaList &iota);

} // namespace hlo
} // namespace kiln

#endif // KILN_LIB_IMPORT_HLO_HLOVALUEPARSER_H
