//===- NumpyArchive.h - host tensors as .npy and .npz files -----*- C++ -*-===//
//
// This file declares the writers of NumPy's array files, so that what kiln
// computes can be read with numpy.load: `.npy` (one array: a magic string,
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

#include <string>
#include <utility>

namespace kiln::interp {

/// The bytes of a `.npy` file holding `tensor`.
std::string encodeNpy(const HostTensor &tensor);

/// Writes `arrays` (name, tensor) as a `.npz` archive at `path`, or one
/// `.npy` file when `path` ends in `.npy` and there is one array. The file
/// is written to a temporary name and renamed, so it is whole or absent.
llvm::Error
writeNumpyFile(llvm::StringRef path,
               llvm::ArrayRef<std::pair<std::string, HostTensor>> arrays);

} // namespace kiln::interp

#endif // KILN_INTERPRETER_NUMPYARCHIVE_H
