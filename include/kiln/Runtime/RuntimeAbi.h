//===- RuntimeAbi.h - compiled code's calls into kiln's runtime -*- C++ -*-===//
//
// This file declares the small interface between compiled graphs and the
// runtime: the C functions that convert-kiln-to-linalg calls, and the
// numbers they take. Collectives move data between participants; compiled
// code knows nothing of who they are: the runtime (Collectives.h)
// implements them with threads of one process, and a multi-process
// transport can implement the same functions. rng_bit_generator calls the
// one implementation of XLA's generators (kiln/Interpreter/RandomBits.h).
//
//   void kiln_rt_collective(i64 kind, i64 reduction, i64 element,
//                           i64 input, i64 output,      // addresses
//                           i64 outer, i64 extent, i64 resultExtent,
//                           i64 inner,
//                           i64 groups, i64 groupCount, i64 groupSize);
//   i64  kiln_rt_participant();
//   void kiln_rt_random_bits(i64 threeFry, i64 state, i64 stateWords,
//                            i64 newState, i64 output, i64 width,
//                            i64 shape, i64 rank);   // addresses: state,
//                                                    // newState, output, shape
//   void kiln_rt_special(i64 function, i64 element, i64 a, i64 b,
//                        i64 output, i64 count);     // addresses: a, b
//                                                    // (0: unary), output
//   void kiln_rt_fft(i64 type, i64 inputElement, i64 outputElement,
//                    i64 input, i64 output, i64 shape, i64 rank,
//                    i64 lengths, i64 lengthCount, i64 outputCount);
//   void kiln_rt_triangular_solve(i64 element, i64 a, i64 b, i64 output,
//                                 i64 m, i64 rows, i64 columns,
//                                 i64 bElements, i64 flags);
//        // flags: 1 left side, 2 lower, 4 unit diagonal, transpose << 3
//   void kiln_rt_cholesky(i64 element, i64 a, i64 output, i64 n,
//                         i64 elements, i64 lower);
//
// The operand is seen as [outer, extent, inner] around the op's dimension
// (all_gather, reduce_scatter, all_to_all; [1, elements, 1] otherwise),
// the result as [outer, resultExtent, inner]. `groups` is the address of
// groupCount rows of groupSize participant numbers (-1 pads short rows;
// none: every participant in one group); for collective_permute, the
// (source, target) pairs.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_RUNTIME_COLLECTIVEABI_H
#define KILN_RUNTIME_COLLECTIVEABI_H

#include <cstdint>

namespace kiln::runtime_abi {

constexpr const char *kCollectiveFunction = "kiln_rt_collective";
constexpr unsigned kCollectiveArguments = 12;
constexpr const char *kParticipantFunction = "kiln_rt_participant";
constexpr const char *kRandomBitsFunction = "kiln_rt_random_bits";
constexpr unsigned kRandomBitsArguments = 8;
constexpr const char *kFftFunction = "kiln_rt_fft";
constexpr unsigned kFftArguments = 10;
constexpr const char *kTriangularSolveFunction = "kiln_rt_triangular_solve";
constexpr unsigned kTriangularSolveArguments = 9;
constexpr const char *kCholeskyFunction = "kiln_rt_cholesky";
constexpr unsigned kCholeskyArguments = 6;
constexpr const char *kSpecialFunction = "kiln_rt_special";
constexpr unsigned kSpecialArguments = 6;

/// CHLO's special functions, element by element, computed as the
/// evaluator computes them (kiln/Interpreter/SpecialFunctions.h): in double,
/// rounded to the element type.
enum class SpecialFunction : int64_t {
  ErfInv = 0,
  Lgamma = 1,
  Digamma = 2,
  BesselI1e = 3,
  Polygamma = 4,
  Zeta = 5,
  NextAfter = 6,
  // Complex functions (of complex<f32> and complex<f64> elements).
  ComplexCosh = 16,
  ComplexSinh = 17,
  ComplexAcosh = 18,
  ComplexAsinh = 19,
  ComplexAtan = 20,
  ComplexAtanh = 21,
  ComplexCbrt = 22,
  ComplexLogistic = 23,
  ComplexAcos = 24,
  ComplexAsin = 25,
  ComplexAtan2 = 26, ///< of two operands
};

enum class CollectiveKind : int64_t {
  AllReduce = 0,
  AllGather = 1,
  ReduceScatter = 2,
  AllToAll = 3,
  Permute = 4,
  Broadcast = 5,
};

enum class Reduction : int64_t {
  None = 0,
  Add = 1,
  Multiply = 2,
  Maximum = 3,
  Minimum = 4,
  And = 5,
  Or = 6,
  Xor = 7,
};

enum class ElementKind : int64_t {
  F32 = 0,
  F64 = 1,
  BF16 = 2,
  F16 = 3,
  S8 = 4,
  S16 = 5,
  S32 = 6,
  S64 = 7,
  U8 = 8,
  U16 = 9,
  U32 = 10,
  U64 = 11,
  Pred = 12,
  /// Integers narrower than a byte (s4, u4, s2, u2), one per byte: moved,
  /// never reduced.
  NarrowInteger = 13,
  C64 = 14,  ///< complex<f32>: real, then imaginary part
  C128 = 15, ///< complex<f64>
};

/// Bytes per element of `kind` in compiled code's buffers.
inline int64_t getElementBytes(ElementKind kind) {
  switch (kind) {
  case ElementKind::C128:
    return 16;
  case ElementKind::F64:
  case ElementKind::S64:
  case ElementKind::U64:
  case ElementKind::C64:
    return 8;
  case ElementKind::F32:
  case ElementKind::S32:
  case ElementKind::U32:
    return 4;
  case ElementKind::BF16:
  case ElementKind::F16:
  case ElementKind::S16:
  case ElementKind::U16:
    return 2;
  default:
    return 1;
  }
}

} // namespace kiln::runtime_abi

#endif // KILN_RUNTIME_COLLECTIVEABI_H
