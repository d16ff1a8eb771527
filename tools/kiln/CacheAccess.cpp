//===- CacheAccess.cpp - how commands apply the cache's settings -*- C++ -*-===//

#include "CacheAccess.h"

using namespace kiln;
using llvm::StringRef;

void kiln::applyKeySettings(const Settings &settings, KeyOptions &keys,
                            std::string *compilerCommand) {
  auto fill = [&](std::string &field, StringRef name) {
    if (!field.empty())
      return;
    if (std::optional<SettingValue> value = settings.get(name))
      field = value->value;
  };
  fill(keys.targetTriple, "target");
  fill(keys.cpu, "target-cpu");
  fill(keys.compilerVersionCommand, "compiler-version-cmd");
  if (compilerCommand)
    fill(*compilerCommand, "compiler-cmd");
  // The settings' options first, so that the command line's win.
  auto prepend = [&](std::vector<std::string> &given, StringRef name) {
    std::vector<std::string> configured = settings.getList(name);
    given.insert(given.begin(), configured.begin(), configured.end());
  };
  prepend(keys.options, "options");
  prepend(keys.compilerOptions, "compiler-options");
}

