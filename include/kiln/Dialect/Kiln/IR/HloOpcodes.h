//===- HloOpcodes.h - HLO opcode <-> kiln op name table ---------*- C++ -*-===//
//
// This file declares the one table that pairs each HLO opcode with the kiln
// op that mirrors it. The importer reads it one way and the exporter the
// other, so the two can never disagree.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECT_KILN_IR_HLOOPCODES_H
#define KILN_DIALECT_KILN_IR_HLOOPCODES_H

#include "llvm/ADT/StringRef.h"

namespace kiln {

/// Returns the full kiln op name (e.g. "kiln.broadcast_in_dim") for an HLO
/// opcode (e.g. "broadcast"), or an empty string when no kiln op mirrors it.
/// Opcodes that the importer handles structurally (parameter, tuple,
/// get-tuple-element, call) have no entry.
llvm::StringRef kilnOpNameForHloOpcode(llvm::StringRef hloOpcode);

/// Returns the HLO opcode for a full kiln op name, or an empty string.
llvm::StringRef hloOpcodeForKilnOpName(llvm::StringRef kilnOpName);

/// Whether a kiln op has no HLO opcode by design: CHLO's functions (XLA
/// expands them before it writes HLO), StableHLO's quantization and the
/// golden tests' kiln.check. In HLO text such an op is a `custom-call`
/// whose target is the op's name and whose `backend_config` holds its
/// attributes as MLIR writes them, so that kiln reads it back as it was.
bool isKilnOpWithoutHloOpcode(llvm::StringRef kilnOpName);

/// The frontend attribute of an exported instruction that holds its
/// results' kiln types (a `tuple<...>` type) where the HLO shape says only
/// how they are stored: quantized tensors.
inline constexpr llvm::StringLiteral kKilnTypesFrontendAttribute =
    "kiln_types";

} // namespace kiln

#endif // KILN_DIALECT_KILN_IR_HLOOPCODES_H
