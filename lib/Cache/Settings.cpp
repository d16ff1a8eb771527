//===- Settings.cpp - options, environment, config files --------*- C++ -*-===//
//
// This file implements kiln's settings: the list of what can be set, the
// reading of `kiln.conf` files (errors at `file:line`), and the precedence
// option > environment > cache directory's file > user's file > default.
//
//===----------------------------------------------------------------------===//

#include "kiln/Cache/Settings.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <sys/stat.h>
#include <unistd.h>

using namespace kiln;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

llvm::ArrayRef<SettingInfo> kiln::getKnownSettings() {
  static const SettingInfo settings[] = {
      {"remote-storage", "KILN_REMOTE_STORAGE", "--remote",
       "remote tiers behind the local cache, tried in order, separated by "
       "spaces: file:PATH, redis://HOST[:PORT][/DB], redis+unix:SOCKET, "
       "http(s)://HOST/PATH, each with |attribute=value"},
      {"compiler-cmd", "KILN_COMPILER_CMD", "--compiler-cmd",
       "compile with this command instead of kiln's CPU backend "
       "({input}, {output}, {flags})"},
      {"compiler-version-cmd", "KILN_COMPILER_VERSION_CMD",
       "--compiler-version-cmd",
       "a command that prints the external compiler's version (part of "
       "every key)"},
      {"compiler-options", "KILN_COMPILER_OPTIONS", "--compiler-option",
       "the external compiler's options, K=V separated by spaces (part of "
       "every key)"},
      {"options", "KILN_OPTIONS", "--option",
       "kiln's compile options, K=V separated by spaces (part of every key)"},
      {"target", "KILN_TARGET", "--target",
       "the target triple artifacts are built for"},
      {"target-cpu", "KILN_TARGET_CPU", "--target-cpu",
       "the CPU artifacts are built for"},
      {"signing-key", "KILN_SIGNING_KEY", "--signing-key",
       "a secret key file (kiln cache keygen): every entry written is signed "
       "with it"},
      {"trusted-keys", "KILN_TRUSTED_KEYS", "--trusted-key",
       "public keys NAME:BASE64, separated by spaces: entries read from a "
       "remote tier count only with a valid signature by one of them"},
      {"require-signatures", "KILN_REQUIRE_SIGNATURES", "--require-signatures",
       "which entries need a trusted signature: remote (the default with "
       "trusted keys), all (the local tier's too) or off"},
  };
  return settings;
}

bool kiln::isKnownSetting(StringRef name) {
  for (const SettingInfo &info : getKnownSettings())
    if (name == info.name)
      return true;
  return false;
}

static Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message.str());
}

std::string Settings::getUserFile() {
  if (std::optional<std::string> xdg =
          llvm::sys::Process::GetEnv("XDG_CONFIG_HOME");
      xdg && !xdg->empty())
    return *xdg + "/kiln/kiln.conf";
  llvm::SmallString<128> home;
  if (!llvm::sys::path::home_directory(home))
    return "";
  llvm::sys::path::append(home, ".config", "kiln", "kiln.conf");
  return std::string(home);
}

/// Reads `path`'s settings into `values` where they are not set yet; a
/// missing file sets nothing.
static Error readFile(const std::string &path,
                      std::map<std::string, SettingValue> &values) {
  if (path.empty() || !llvm::sys::fs::exists(path))
    return Error::success();
  auto bytes = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!bytes)
    return makeError(path + ": error: cannot read it: " +
                     bytes.getError().message());
  llvm::SmallVector<StringRef> lines;
  StringRef text = (*bytes)->getBuffer();
  text.consume_front("\xEF\xBB\xBF"); // a UTF-8 byte order mark
  text.split(lines, '\n');
  std::map<std::string, SettingValue> found;
  for (size_t i = 0; i < lines.size(); ++i) {
    // A comment is a whole line: '#' may stand in a value (a password).
    StringRef line = lines[i].trim();
    if (line.empty() || line.starts_with("#"))
      continue;
    std::string where = path + ":" + std::to_string(i + 1);
    if (!line.contains('='))
      return makeError(where + ":1: error: expected 'name = value', got '" +
                       line + "'");
    auto [name, value] = line.split('=');
    name = name.trim();
    if (!isKnownSetting(name)) {
      std::vector<std::string> known;
      for (const SettingInfo &info : getKnownSettings())
        known.push_back(info.name);
      return makeError(where + ":1: error: unknown setting '" + name +
                       "'; the settings are: " + llvm::join(known, ", "));
    }
    found[name.str()] = SettingValue{value.trim().str(), where};
  }
  // Settings that run commands or decide what is trusted come only from a
  // file that no one else may write: a cache directory shared with others
  // must not choose this user's compiler or keys.
  struct stat status;
  if (::stat(path.c_str(), &status) == 0 &&
      ((status.st_uid != ::geteuid() && status.st_uid != 0) ||
       (status.st_mode & 022)))
    for (const char *name : {"compiler-cmd", "compiler-version-cmd",
                             "signing-key", "trusted-keys",
                             "require-signatures"})
      if (auto it = found.find(name); it != found.end()) {
        char mode[8];
        std::snprintf(mode, sizeof(mode), "%o", status.st_mode & 0777);
        return makeError(it->second.origin + ":1: error: " + name +
                         " is not taken from a file that others may write "
                         "(owner uid " + llvm::Twine(status.st_uid) +
                         ", mode " + mode +
                         "): it decides what runs or what is trusted; set "
                         "it in your own kiln.conf, the environment or on "
                         "the command line");
      }
  for (auto &[name, value] : found)
    values.try_emplace(name, std::move(value));
  return Error::success();
}

Expected<Settings> Settings::load(StringRef cacheDirectory) {
  Settings settings;
  for (const SettingInfo &info : getKnownSettings())
    if (std::optional<std::string> value =
            llvm::sys::Process::GetEnv(info.environment))
      settings.values[info.name] =
          SettingValue{*value, std::string("environment ") + info.environment};
  if (!cacheDirectory.empty())
    if (Error error =
            readFile((cacheDirectory + "/kiln.conf").str(), settings.values))
      return std::move(error);
  if (Error error = readFile(getUserFile(), settings.values))
    return std::move(error);
  return settings;
}

void Settings::setFromOption(StringRef name, StringRef value,
                             StringRef option) {
  values[name.str()] = SettingValue{value.str(), "option " + option.str()};
}

std::optional<SettingValue> Settings::get(StringRef name) const {
  auto found = values.find(name.str());
  if (found == values.end())
    return std::nullopt;
  return found->second;
}

std::vector<std::string> Settings::getList(StringRef name) const {
  std::vector<std::string> words;
  if (std::optional<SettingValue> value = get(name)) {
    // Options give one item each (kept apart by newlines: an item may hold
    // spaces); files and the environment separate them by spaces.
    llvm::SmallVector<StringRef> parts;
    StringRef text = value->value;
    text.split(parts, text.contains('\n') ? '\n' : ' ', -1,
               /*KeepEmpty=*/false);
    for (StringRef part : parts)
      if (!part.trim().empty())
        words.push_back(part.trim().str());
  }
  return words;
}

Error Settings::writeToCacheFile(StringRef cacheDirectory, StringRef name,
                                 StringRef value) {
  std::string path = (cacheDirectory + "/kiln.conf").str();
  // One line per setting: a line break would make a setting of its own.
  if (value.find_first_of("\r\n") != StringRef::npos)
    return makeError("the value of " + name + " holds a line break");
  if (value.trim() != value)
    value = value.trim();
  std::vector<std::string> lines;
  if (llvm::sys::fs::exists(path)) {
    auto bytes = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
    if (!bytes)
      return makeError(path + ": error: cannot read it: " +
                       bytes.getError().message());
    llvm::SmallVector<StringRef> existing;
    (*bytes)->getBuffer().split(existing, '\n');
    for (StringRef line : existing)
      lines.push_back(line.str());
    while (!lines.empty() && lines.back().empty())
      lines.pop_back();
  }
  bool replaced = false;
  for (auto line = lines.begin(); line != lines.end();) {
    StringRef text = StringRef(*line).trim();
    if (!text.starts_with("#") && text.contains('=') &&
        text.split('=').first.trim() == name) {
      if (replaced || value.empty()) {
        line = lines.erase(line);
        continue;
      }
      *line = (name + " = " + value).str();
      replaced = true;
    }
    ++line;
  }
  if (!replaced && !value.empty())
    lines.push_back((name + " = " + value).str());
  // Written to a temporary and renamed: a reader sees the old file or the
  // new one.
  return llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
    for (const std::string &line : lines)
      os << line << "\n";
    return Error::success();
  });
}
