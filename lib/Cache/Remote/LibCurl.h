//===- LibCurl.h - libcurl, opened when an HTTP tier is ---------*- C++ -*-===//
//
// libcurl and what it loads (TLS, Kerberos, LDAP, IDN, HTTP/2: twenty-five
// shared libraries) cost every process about 11 ms of dynamic loading, and
// only a run with an http:// or https:// tier uses it. kiln therefore does
// not link it: the first HTTP tier opens it with the dynamic loader and
// takes the functions it calls, typed by curl's own header.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LIB_CACHE_REMOTE_LIBCURL_H
#define KILN_LIB_CACHE_REMOTE_LIBCURL_H

#include <curl/curl.h>

#include <string>

namespace kiln {

/// The libcurl functions the HTTP tier calls, resolved once per process.
struct LibCurl {
  decltype(&::curl_global_init) globalInit;
  decltype(&::curl_easy_init) easyInit;
  decltype(&::curl_easy_reset) easyReset;
  decltype(&::curl_easy_setopt) easySetopt;
  decltype(&::curl_easy_perform) easyPerform;
  decltype(&::curl_easy_getinfo) easyGetinfo;
  decltype(&::curl_easy_strerror) easyStrerror;
  decltype(&::curl_easy_cleanup) easyCleanup;
  decltype(&::curl_slist_append) slistAppend;
  decltype(&::curl_slist_free_all) slistFreeAll;

  /// libcurl, opened and globally initialized on the first call; null with
  /// `error` saying why (the library or one of its functions missing).
  static const LibCurl *get(std::string &error);
};

} // namespace kiln

#endif // KILN_LIB_CACHE_REMOTE_LIBCURL_H
