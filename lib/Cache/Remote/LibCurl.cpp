//===- LibCurl.cpp - libcurl, opened when an HTTP tier is -------*- C++ -*-===//
//
// Opens libcurl by its soname (KILN_LIBCURL_SONAME, the library the build
// found) and resolves the functions the HTTP tier calls.
//
//===----------------------------------------------------------------------===//

#include "LibCurl.h"

#include "llvm/Support/DynamicLibrary.h"

#include <mutex>
#include <type_traits>

using namespace kiln;

const LibCurl *LibCurl::get(std::string &error) {
  static LibCurl functions;
  static std::string failure;
  static std::once_flag opened;
  std::call_once(opened, [] {
    std::string message;
    llvm::sys::DynamicLibrary library =
        llvm::sys::DynamicLibrary::getPermanentLibrary(KILN_LIBCURL_SONAME,
                                                       &message);
    if (!library.isValid()) {
      failure = "cannot open " + std::string(KILN_LIBCURL_SONAME) + " (" +
                message + "): the HTTP tier needs libcurl";
      return;
    }
    // Each function by its name, typed as curl's header declares it.
    const char *missing = nullptr;
    auto take = [&](auto &function, const char *name) {
      function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(
          library.getAddressOfSymbol(name));
      if (!function && !missing)
        missing = name;
    };
    take(functions.globalInit, "curl_global_init");
    take(functions.easyInit, "curl_easy_init");
    take(functions.easyReset, "curl_easy_reset");
    take(functions.easySetopt, "curl_easy_setopt");
    take(functions.easyPerform, "curl_easy_perform");
    take(functions.easyGetinfo, "curl_easy_getinfo");
    take(functions.easyStrerror, "curl_easy_strerror");
    take(functions.easyCleanup, "curl_easy_cleanup");
    take(functions.slistAppend, "curl_slist_append");
    take(functions.slistFreeAll, "curl_slist_free_all");
    if (missing) {
      failure = std::string(KILN_LIBCURL_SONAME) + " has no " + missing;
      return;
    }
    if (CURLcode code = functions.globalInit(CURL_GLOBAL_DEFAULT))
      failure = "libcurl could not start: " +
                std::string(functions.easyStrerror(code));
  });
  if (!failure.empty()) {
    error = failure;
    return nullptr;
  }
  return &functions;
}
