//===- HloOpcodes.cpp - HLO opcode <-> kiln op name table -------*- C++ -*-===//
//
// This file holds the pairing of HLO opcodes and kiln ops. Most kiln ops take
// the HLO opcode with '-' written as '_'; the few that differ (broadcast,
// dot, opt-barrier) follow the names that MLIR users know from StableHLO.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Kiln/IR/HloOpcodes.h"

#include "llvm/ADT/STLExtras.h"
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
    {"add-dependency", "kiln.add_dependency"},
    {"after-all", "kiln.after_all"},
    {"all-gather", "kiln.all_gather"},
    {"all-gather-done", "kiln.all_gather_done"},
    {"all-gather-start", "kiln.all_gather_start"},
    {"all-reduce", "kiln.all_reduce"},
    {"all-reduce-done", "kiln.all_reduce_done"},
    {"all-reduce-start", "kiln.all_reduce_start"},
    {"all-to-all", "kiln.all_to_all"},
    {"and", "kiln.and"},
    {"async-done", "kiln.async_done"},
    {"async-start", "kiln.async_start"},
    {"async-update", "kiln.async_update"},
    {"atan2", "kiln.atan2"},
    {"batch-norm-grad", "kiln.batch_norm_grad"},
    {"batch-norm-inference", "kiln.batch_norm_inference"},
    {"batch-norm-training", "kiln.batch_norm_training"},
    {"bitcast", "kiln.bitcast"},
    {"bitcast-convert", "kiln.bitcast_convert"},
    {"broadcast", "kiln.broadcast_in_dim"},
    {"cbrt", "kiln.cbrt"},
    {"ceil", "kiln.ceil"},
    {"cholesky", "kiln.cholesky"},
    {"clamp", "kiln.clamp"},
    {"collective-broadcast", "kiln.collective_broadcast"},
    {"collective-permute", "kiln.collective_permute"},
    {"collective-permute-done", "kiln.collective_permute_done"},
    {"collective-permute-start", "kiln.collective_permute_start"},
    {"compare", "kiln.compare"},
    {"complex", "kiln.complex"},
    {"concatenate", "kiln.concatenate"},
    {"conditional", "kiln.conditional"},
    {"constant", "kiln.constant"},
    {"convert", "kiln.convert"},
    {"convolution", "kiln.convolution"},
    {"copy", "kiln.copy"},
    {"copy-done", "kiln.copy_done"},
    {"copy-start", "kiln.copy_start"},
    {"cosine", "kiln.cosine"},
    {"count-leading-zeros", "kiln.count_leading_zeros"},
    {"custom-call", "kiln.custom_call"},
    {"divide", "kiln.divide"},
    {"domain", "kiln.domain"},
    {"dot", "kiln.dot_general"},
    {"dynamic-reshape", "kiln.dynamic_reshape"},
    {"dynamic-slice", "kiln.dynamic_slice"},
    {"dynamic-update-slice", "kiln.dynamic_update_slice"},
    {"erf", "kiln.erf"},
    {"exponential", "kiln.exponential"},
    {"exponential-minus-one", "kiln.exponential_minus_one"},
    {"fft", "kiln.fft"},
    {"floor", "kiln.floor"},
    {"fusion", "kiln.fusion"},
    {"gather", "kiln.gather"},
    {"get-dimension-size", "kiln.get_dimension_size"},
    {"imag", "kiln.imag"},
    {"infeed", "kiln.infeed"},
    {"iota", "kiln.iota"},
    {"is-finite", "kiln.is_finite"},
    {"log", "kiln.log"},
    {"log-plus-one", "kiln.log_plus_one"},
    {"logistic", "kiln.logistic"},
    {"map", "kiln.map"},
    {"maximum", "kiln.maximum"},
    {"minimum", "kiln.minimum"},
    {"multiply", "kiln.multiply"},
    {"negate", "kiln.negate"},
    {"not", "kiln.not"},
    {"opt-barrier", "kiln.optimization_barrier"},
    {"or", "kiln.or"},
    {"outfeed", "kiln.outfeed"},
    {"pad", "kiln.pad"},
    {"partition-id", "kiln.partition_id"},
    {"popcnt", "kiln.popcnt"},
    {"power", "kiln.power"},
    {"ragged-all-to-all", "kiln.ragged_all_to_all"},
    {"ragged-dot", "kiln.ragged_dot"},
    {"real", "kiln.real"},
    {"recv", "kiln.recv"},
    {"recv-done", "kiln.recv_done"},
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
    {"rng-get-and-update-state", "kiln.rng_get_and_update_state"},
    {"round-nearest-afz", "kiln.round_nearest_afz"},
    {"round-nearest-even", "kiln.round_nearest_even"},
    {"rsqrt", "kiln.rsqrt"},
    {"scaled-dot", "kiln.scaled_dot"},
    {"scatter", "kiln.scatter"},
    {"select", "kiln.select"},
    {"select-and-scatter", "kiln.select_and_scatter"},
    {"send", "kiln.send"},
    {"send-done", "kiln.send_done"},
    {"set-dimension-size", "kiln.set_dimension_size"},
    {"shift-left", "kiln.shift_left"},
    {"shift-right-arithmetic", "kiln.shift_right_arithmetic"},
    {"shift-right-logical", "kiln.shift_right_logical"},
    {"sign", "kiln.sign"},
    {"sine", "kiln.sine"},
    {"slice", "kiln.slice"},
    {"sort", "kiln.sort"},
    {"sqrt", "kiln.sqrt"},
    {"stochastic-convert", "kiln.stochastic_convert"},
    {"subtract", "kiln.subtract"},
    {"tan", "kiln.tan"},
    {"tanh", "kiln.tanh"},
    {"topk", "kiln.topk"},
    {"transpose", "kiln.transpose"},
    {"triangular-solve", "kiln.triangular_solve"},
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

bool kiln::isKilnOpWithoutHloOpcode(llvm::StringRef kilnOpName) {
  static const llvm::StringLiteral kNames[] = {
      "kiln.acos",   "kiln.acosh",      "kiln.asin",       "kiln.asinh",
      "kiln.atan",   "kiln.atanh",      "kiln.cosh",       "kiln.sinh",
      "kiln.erfc",   "kiln.erf_inv",    "kiln.lgamma",     "kiln.digamma",
      "kiln.bessel_i1e", "kiln.next_after", "kiln.polygamma", "kiln.zeta", "kiln.mulhi",
      "kiln.check", "kiln.uniform_quantize", "kiln.uniform_dequantize",
      "kiln.causal_mask", "kiln.run_parallel"};
  return llvm::is_contained(kNames, kilnOpName);
}
