//===- CacheAccess.h - how commands apply the cache's settings --*- C++ -*-===//
//
// This file declares what the commands add to kiln/Cache/CacheAccess.h:
// the settings that fill a command's key options.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_TOOLS_KILN_CACHEACCESS_H
#define KILN_TOOLS_KILN_CACHEACCESS_H

#include "GraphKeys.h"
#include "kiln/Cache/CacheAccess.h"

namespace kiln {

/// Fills what the command line left unset in `keys` (target, CPU, options,
/// the external compiler's options and version command) from `settings`;
/// options given on the command line win over the settings' of the same
/// name. `compilerCommand`, if given, likewise.
void applyKeySettings(const Settings &settings, KeyOptions &keys,
                      std::string *compilerCommand = nullptr);

} // namespace kiln

#endif // KILN_TOOLS_KILN_CACHEACCESS_H
