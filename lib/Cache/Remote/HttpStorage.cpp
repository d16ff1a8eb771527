//===- HttpStorage.cpp - a remote tier over HTTP ----------------*- C++ -*-===//
//
// This file implements `http://` and `https://` through libcurl: an entry
// is `URL[/PREFIX]/<key>` (a failed compilation's log `<key>.failed`), read
// with GET, written with PUT, asked for with HEAD and removed with DELETE,
// as any WebDAV-capable server (nginx's `dav_methods PUT DELETE`), an S3
// bucket behind a gateway, or a cache server takes them. An optional bearer
// token is read from a file (`bearer-token-file=PATH`), never from the
// command line. HTTP has no compare-and-set, so this tier holds no leases:
// they come from the next tier that has them. libcurl is opened with the
// first HTTP tier (LibCurl.h), not linked.
//
//===----------------------------------------------------------------------===//

#include "kiln/Cache/Remote/RemoteStorage.h"

#include "LibCurl.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"


using namespace kiln;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

namespace {

/// A response: status and, for GET, the body.
struct Response {
  long status = 0;
  std::string body;
};

size_t appendBody(char *data, size_t size, size_t count, void *user) {
  auto *body = static_cast<std::string *>(user);
  // A body past the bound is refused (curl then fails the transfer).
  if (body->size() + size * count > kMaxRemoteEntryBytes)
    return 0;
  body->append(data, size * count);
  return size * count;
}

/// Reserves the body's size from Content-Length, so that a large artifact
/// is not copied as the string grows.
size_t readHeader(char *data, size_t size, size_t count, void *user) {
  StringRef line(data, size * count);
  if (line.starts_with_insensitive("content-length:")) {
    uint64_t length;
    // Reserved up to a bound: a server's word is not an allocation.
    if (!line.drop_front(15).trim().getAsInteger(10, length))
      static_cast<std::string *>(user)->reserve(
          std::min<uint64_t>(length, 256ull << 20));
  }
  return size * count;
}

struct Upload {
  StringRef bytes;
  size_t offset = 0;
};

size_t readUpload(char *buffer, size_t size, size_t count, void *user) {
  auto *upload = static_cast<Upload *>(user);
  size_t n = std::min(size * count, upload->bytes.size() - upload->offset);
  memcpy(buffer, upload->bytes.data() + upload->offset, n);
  upload->offset += n;
  return n;
}

class HttpStorage : public RemoteStorage {
public:
  HttpStorage(RemoteSpec spec, const LibCurl &lib)
      : RemoteStorage(std::move(spec)), lib(lib) {
    base = StringRef(this->spec.url).rtrim('/').str();
    auto prefix = this->spec.attributes.find("prefix");
    if (prefix != this->spec.attributes.end())
      base += "/" + StringRef(prefix->second).trim('/').str();
  }
  ~HttpStorage() override {
    if (curl)
      lib.easyCleanup(curl);
    if (headers)
      lib.slistFreeAll(headers);
  }

  /// Reads the bearer token, if any; an error message if it cannot be.
  std::string readToken() {
    auto file = spec.attributes.find("bearer-token-file");
    if (file == spec.attributes.end())
      return "";
    // A regular file only: a FIFO would block the read.
    llvm::sys::fs::file_status status;
    if (llvm::sys::fs::status(file->second, status) ||
        status.type() != llvm::sys::fs::file_type::regular_file)
      return "bearer-token-file " + file->second + " is not a regular file";
    auto bytes = llvm::MemoryBuffer::getFile(file->second);
    if (!bytes)
      return "cannot read bearer-token-file " + file->second + ": " +
             bytes.getError().message();
    std::string token = (*bytes)->getBuffer().trim().str();
    if (token.empty() || token.find_first_of("\r\n") != std::string::npos)
      return "bearer-token-file " + file->second +
             " must hold one token on one line";
    headers = lib.slistAppend(headers,
                              ("Authorization: Bearer " + token).c_str());
    return "";
  }

  Expected<std::optional<std::string>> fetch(StringRef key,
                                             RemoteEntryKind kind) override {
    Expected<Response> response = perform("GET", entryUrl(key, kind));
    if (!response)
      return response.takeError();
    if (response->status == 404)
      return std::optional<std::string>();
    if (response->status != 200)
      return statusError("GET", key, *response);
    return std::optional<std::string>(std::move(response->body));
  }

  Expected<bool> store(StringRef key, RemoteEntryKind kind, StringRef file,
                       bool overwrite) override {
    if (!overwrite) {
      Expected<bool> there = exists(key, kind);
      if (!there)
        return there.takeError();
      if (*there)
        return false;
    }
    Expected<Response> response = perform("PUT", entryUrl(key, kind), file);
    if (!response)
      return response.takeError();
    if (response->status < 200 || response->status >= 300)
      return statusError("PUT", key, *response);
    return true;
  }

  Expected<bool> exists(StringRef key, RemoteEntryKind kind) override {
    Expected<Response> response = perform("HEAD", entryUrl(key, kind));
    if (!response)
      return response.takeError();
    if (response->status == 404)
      return false;
    if (response->status != 200)
      return statusError("HEAD", key, *response);
    return true;
  }

  Expected<bool> remove(StringRef key, RemoteEntryKind kind) override {
    Expected<Response> response = perform("DELETE", entryUrl(key, kind));
    if (!response)
      return response.takeError();
    if (response->status == 404)
      return false;
    if (response->status < 200 || response->status >= 300)
      return statusError("DELETE", key, *response);
    return true;
  }

  Expected<std::vector<std::string>> listKeys() override {
    return makeRemoteError(getName() +
                           ": an HTTP tier cannot list its entries; name "
                           "the graphs or keys to copy");
  }

private:
  std::string entryUrl(StringRef key, RemoteEntryKind kind) const {
    return base + "/" + key.str() +
           (kind == RemoteEntryKind::Failure ? ".failed" : "");
  }

  Error statusError(StringRef method, StringRef key,
                    const Response &response) {
    return makeRemoteError(getName() + ": " + method + " " + key +
                           ": HTTP status " +
                           std::to_string(response.status));
  }

  Expected<Response> perform(StringRef method, const std::string &url,
                             StringRef upload = {}) {
    if (!curl) {
      curl = lib.easyInit();
      if (!curl)
        return makeRemoteError(getName() + ": libcurl could not start");
    }
    lib.easyReset(curl);
    Response response;
    Upload body{upload};
    lib.easySetopt(curl, CURLOPT_URL, url.c_str());
    lib.easySetopt(curl, CURLOPT_NOSIGNAL, 1L);
    lib.easySetopt(curl, CURLOPT_CONNECTTIMEOUT_MS,
                     (long)spec.connectTimeoutMs);
    lib.easySetopt(curl, CURLOPT_TIMEOUT_MS, (long)spec.operationTimeoutMs);
    lib.easySetopt(curl, CURLOPT_USERAGENT, "kiln");
    lib.easySetopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    if (headers)
      lib.easySetopt(curl, CURLOPT_HTTPHEADER, headers);
    lib.easySetopt(curl, CURLOPT_WRITEFUNCTION, appendBody);
    lib.easySetopt(curl, CURLOPT_WRITEDATA, &response.body);
    if (method == "GET") {
      lib.easySetopt(curl, CURLOPT_HEADERFUNCTION, readHeader);
      lib.easySetopt(curl, CURLOPT_HEADERDATA, &response.body);
    }
    if (method == "HEAD") {
      lib.easySetopt(curl, CURLOPT_NOBODY, 1L);
    } else if (method == "PUT") {
      lib.easySetopt(curl, CURLOPT_UPLOAD, 1L);
      lib.easySetopt(curl, CURLOPT_READFUNCTION, readUpload);
      lib.easySetopt(curl, CURLOPT_READDATA, &body);
      lib.easySetopt(curl, CURLOPT_INFILESIZE_LARGE,
                       (curl_off_t)upload.size());
    } else if (method == "DELETE") {
      lib.easySetopt(curl, CURLOPT_CUSTOMREQUEST, "DELETE");
    }
    CURLcode code = lib.easyPerform(curl);
    if (code != CURLE_OK) {
      bool timedOut = code == CURLE_OPERATION_TIMEDOUT;
      std::string shown = hidePassword(url);
      if (code == CURLE_WRITE_ERROR)
        return makeRemoteEntryError(method + " " + shown +
                                    ": the answer is larger than an entry "
                                    "may be");
      return makeRemoteError(getName() + ": " + method + " " + shown + ": " +
                                 lib.easyStrerror(code),
                             timedOut);
    }
    lib.easyGetinfo(curl, CURLINFO_RESPONSE_CODE, &response.status);
    return std::move(response);
  }

  const LibCurl &lib;
  std::string base;
  CURL *curl = nullptr;
  curl_slist *headers = nullptr;
};

} // namespace

std::unique_ptr<RemoteStorage> kiln::createHttpStorage(const RemoteSpec &spec,
                                                       std::string &error) {
  const LibCurl *lib = LibCurl::get(error);
  if (!lib)
    return nullptr;
  auto storage = std::make_unique<HttpStorage>(spec, *lib);
  error = storage->readToken();
  if (!error.empty())
    return nullptr;
  return storage;
}
