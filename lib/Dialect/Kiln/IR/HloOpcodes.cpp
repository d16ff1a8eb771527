//===- HloOpcodes.cpp - HLO opcode <-> kiln op name table -------*- C++ -*-===//
//
// This file holds the pairing of HLO opcodes and kiln ops. Most kiln ops take
// the HLO opcode with '-' written as '_'; the few that differ (broadcast,
// dot, opt-barrier) follow the names that MLIR users know from StableHLO.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/HloOpcodes.h"

#include "llvm/ADT/StringMap.h"

using namespace kiln;

namespace {
struct OpcodePair {
  const char *hlo;
  const char *kiln;
};

// Keep sorted by HLO opcode for readability; lookups go through the maps.
constexpr OpcodePair kOpcodePairs[] = {
    {"abs", "kiln.abs"},
    {"add", "kiln.add"},
    {"after-all", "kiln.after_all"},
    {"all-gather", "kiln.all_gather"},
    {"all-reduce", "kiln.all_reduce"},
    {"all-to-all", "kiln.all_to_all"},
    {"and", "kiln.and"},
    {"atan2", "kiln.atan2"},
    {"batch-norm-grad", "kiln.batch_norm_grad"},
    {"batch-norm-inference", "kiln.batch_norm_inference"},
    {"batch-norm-training", "kiln.batch_norm_training"},
    {"bitcast", "kiln.bitcast"},
    {"bitcast-convert", "kiln.bitcast_convert"},
    {"broadcast", "kiln.broadcast_in_dim"},
    {"cbrt", "kiln.cbrt"},
    {"ceil", "kiln.ceil"},
    {"clamp", "kiln.clamp"},
    {"collective-permute", "kiln.collective_permute"},
    {"compare", "kiln.compare"},
    {"concatenate", "kiln.concatenate"},
    {"conditional", "kiln.conditional"},
    {"constant", "kiln.constant"},
    {"convert", "kiln.convert"},
    {"copy", "kiln.copy"},
    {"cosine", "kiln.cosine"},
    {"count-leading-zeros", "kiln.count_leading_zeros"},
    {"custom-call", "kiln.custom_call"},
    {"divide", "kiln.divide"},
    {"dot", "kiln.dot_general"},
    {"dynamic-slice", "kiln.dynamic_slice"},
    {"dynamic-update-slice", "kiln.dynamic_update_slice"},
    {"erf", "kiln.erf"},
    {"exponential", "kiln.exponential"},
    {"exponential-minus-one", "kiln.exponential_minus_one"},
    {"floor", "kiln.floor"},
    {"gather", "kiln.gather"},
    {"iota", "kiln.iota"},
    {"is-finite", "kiln.is_finite"},
    {"log", "kiln.log"},
    {"log-plus-one", "kiln.log_plus_one"},
    {"logistic", "kiln.logistic"},
    {"maximum", "kiln.maximum"},
    {"minimum", "kiln.minimum"},
    {"multiply", "kiln.multiply"},
    {"negate", "kiln.negate"},
    {"not", "kiln.not"},
    {"opt-barrier", "kiln.optimization_barrier"},
    {"or", "kiln.or"},
    {"pad", "kiln.pad"},
    {"partition-id", "kiln.partition_id"},
    {"popcnt", "kiln.popcnt"},
    {"power", "kiln.power"},
    {"reduce", "kiln.reduce"},
    {"reduce-precision", "kiln.reduce_precision"},
    {"reduce-scatter", "kiln.reduce_scatter"},
    {"reduce-window", "kiln.reduce_window"},
    {"remainder", "kiln.remainder"},
    {"replica-id", "kiln.replica_id"},
    {"reshape", "kiln.reshape"},
    {"reverse", "kiln.reverse"},
    {"rng", "kiln.rng"},
    {"rng-bit-generator", "kiln.rng_bit_generator"},
    {"round-nearest-afz", "kiln.round_nearest_afz"},
    {"round-nearest-even", "kiln.round_nearest_even"},
    {"rsqrt", "kiln.rsqrt"},
    {"scatter", "kiln.scatter"},
    {"select", "kiln.select"},
    {"shift-left", "kiln.shift_left"},
    {"shift-right-arithmetic", "kiln.shift_right_arithmetic"},
    {"shift-right-logical", "kiln.shift_right_logical"},
    {"sign", "kiln.sign"},
    {"sine", "kiln.sine"},
    {"slice", "kiln.slice"},
    {"sort", "kiln.sort"},
    {"sqrt", "kiln.sqrt"},
    {"subtract", "kiln.subtract"},
    {"tan", "kiln.tan"},
    {"tanh", "kiln.tanh"},
    {"topk", "kiln.topk"},
    {"transpose", "kiln.transpose"},
    {"while", "kiln.while"},
    {"xor", "kiln.xor"},
};

struct OpcodeMaps {
  llvm::StringMap<llvm::StringRef> hloToKiln;
  llvm::StringMap<llvm::StringRef> kilnToHlo;
  OpcodeMaps() {
    for (const OpcodePair &pair : kOpcodePairs) {
      hloToKiln[pair.hlo] = pair.kiln;
      kilnToHlo[pair.kiln] = pair.hlo;
    }
  }
};

const OpcodeMaps &getOpcodeMaps() {
  static const OpcodeMaps maps;
  return maps;
}
} // namespace

llvm::StringRef kiln::kilnOpNameForHloOpcode(llvm::StringRef hloOpcode) {
  return getOpcodeMaps().hloToKiln.lookup(hloOpcode);
}

llvm::StringRef kiln::hloOpcodeForKilnOpName(llvm::StringRef kilnOpName) {
  return getOpcodeMaps().kilnToHlo.lookup(kilnOpName);
}
