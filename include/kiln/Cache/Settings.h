//===- Settings.h - what users configure once -------------------*- C++ -*-===//
//
// This file declares kiln's settings: what users would otherwise repeat on
// every command and get misses when they forget (the remote tiers, an
// external compiler, the target, compile options). Each setting comes from
// the first of: a command-line option, a `KILN_*` environment variable,
// `kiln.conf` in the cache directory, the user's
// `$XDG_CONFIG_HOME/kiln/kiln.conf` (else `~/.config/kiln/kiln.conf`), and
// its default; `kiln cache config` prints each with where it came from.
// A file holds `name = value` lines; a line that starts with `#` is a
// comment.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_CACHE_SETTINGS_H
#define KILN_CACHE_SETTINGS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kiln {

/// A setting kiln knows: its name in files, its environment variable, the
/// option that overrides it, and what it means.
struct SettingInfo {
  const char *name;
  const char *environment;
  const char *option;
  const char *description;
};

/// Every setting, in the order `kiln cache config` prints them.
llvm::ArrayRef<SettingInfo> getKnownSettings();

/// A setting's value and where it came from.
struct SettingValue {
  std::string value;
  /// "option --remote", "environment KILN_REMOTE_STORAGE",
  /// "/path/kiln.conf:3", "default".
  std::string origin;
};

class Settings {
public:
  /// Reads the environment, `cacheDirectory`'s kiln.conf and the user's.
  /// An unknown name or a malformed line is an error naming the file and
  /// line.
  static llvm::Expected<Settings> load(llvm::StringRef cacheDirectory);
  /// The user's file: `$XDG_CONFIG_HOME/kiln/kiln.conf`, else
  /// `~/.config/kiln/kiln.conf`.
  static std::string getUserFile();

  /// Takes `value` from the command line (it wins over everything else).
  void setFromOption(llvm::StringRef name, llvm::StringRef value,
                     llvm::StringRef option);
  /// The value, if any source sets it.
  std::optional<SettingValue> get(llvm::StringRef name) const;
  /// A value's words (space-separated lists: remote-storage, options).
  std::vector<std::string> getList(llvm::StringRef name) const;

  /// Sets `name` in the cache directory's kiln.conf (replacing its line,
  /// or adding one; an empty value removes it), written atomically.
  static llvm::Error writeToCacheFile(llvm::StringRef cacheDirectory,
                                      llvm::StringRef name,
                                      llvm::StringRef value);

private:
  std::map<std::string, SettingValue> values;
};

/// Whether `name` is a setting kiln knows.
bool isKnownSetting(llvm::StringRef name);

} // namespace kiln

#endif // KILN_CACHE_SETTINGS_H
