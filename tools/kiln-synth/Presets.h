//===- Presets.h - kiln-synth's named model and layout configs --*- C++ -*-===//
//
// This file declares the presets: the seed workloads' models and parallel
// layouts, shape-faithful (Llama 2 7B/13B/70B and Llama 3 70B's published
// sizes), and `tiny-*` variants with the same layout and tiny sizes, which
// compile and run on one machine in seconds.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_SYNTH_PRESETS_H
#define KILN_SYNTH_PRESETS_H

#include "LlamaStep.h"

#include <optional>
#include <string>
#include <vector>

namespace kiln::synth {

struct Preset {
  std::string name;
  std::string description;
  LlamaConfig config;
};

/// Every preset, the seed workloads first.
const std::vector<Preset> &getPresets();

/// The preset called `name`.
std::optional<LlamaConfig> findPreset(const std::string &name);

} // namespace kiln::synth

#endif // KILN_SYNTH_PRESETS_H
