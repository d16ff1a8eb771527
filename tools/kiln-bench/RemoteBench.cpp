//===- RemoteBench.cpp - kiln-bench remote ----------------------*- C++ -*-===//
//
// This file implements `kiln-bench remote`. Every figure is printed beside
// its floor measured in the same run, on the same server and bytes: a
// remote hit fetched into the local tier (lookup, verification of header,
// key and checksum, copy into the local tier) against the plain read of the
// same cache file by the same means (hiredis GET, read(2), libcurl GET);
// and `kiln cache check --fetch` on an empty local cache against the same
// check on a local cache that holds every graph.
//
//===----------------------------------------------------------------------===//

#include "RemoteBench.h"
#include "TimedRun.h"

#include "kiln/Cache/TieredCache.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <curl/curl.h>
#include <hiredis/hiredis.h>

#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <netinet/in.h>
#include <random>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

using namespace kiln;
using namespace kiln::bench;

namespace {

double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

double percentile(std::vector<double> values, double p) {
  if (values.empty())
    return 0;
  llvm::sort(values);
  size_t index =
      std::min(values.size() - 1, (size_t)(values.size() * p / 100));
  return values[index];
}

int freePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  int port = -1;
  if (::bind(fd, (sockaddr *)&address, sizeof(address)) == 0 &&
      ::getsockname(fd, (sockaddr *)&address, &length) == 0)
    port = ntohs(address.sin_port);
  ::close(fd);
  return port;
}

bool waitForPort(int port) {
  for (int i = 0; i < 400; ++i) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(port);
    bool up = ::connect(fd, (sockaddr *)&address, sizeof(address)) == 0;
    ::close(fd);
    if (up)
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  return false;
}

/// A server process of the benchmark's own, stopped with the object.
struct Server {
  llvm::sys::ProcessInfo process;
  int port = -1;
  bool start(const std::string &program, std::vector<std::string> args,
             int listenPort) {
    llvm::ErrorOr<std::string> path = llvm::sys::findProgramByName(
        program, {"/usr/sbin", "/usr/bin", "/usr/local/sbin"});
    if (!path)
      return false;
    std::vector<llvm::StringRef> argv = {*path};
    for (const std::string &arg : args)
      argv.push_back(arg);
    std::optional<llvm::StringRef> redirects[] = {
        llvm::StringRef(""), llvm::StringRef("/dev/null"),
        llvm::StringRef("/dev/null")};
    process = llvm::sys::ExecuteNoWait(*path, argv, std::nullopt, redirects);
    port = listenPort;
    return process.Pid > 0 && waitForPort(port);
  }
  ~Server() {
    if (process.Pid > 0) {
      ::kill(process.Pid, SIGTERM);
      llvm::sys::Wait(process, std::nullopt);
    }
  }
};

/// A cache file of `size` random payload bytes for bench graph `name`.
std::pair<std::string, KeyParts> makeCacheFile(llvm::StringRef name,
                                               size_t size) {
  KeyParts parts;
  parts.signature = Hash128::of(("kiln-bench remote " + name).str());
  parts.targetTriple = "x86_64-unknown-linux-gnu";
  parts.cpuName = "x86-64-v3";
  parts.compiler = "kiln-bench";
  std::string payload(size, '\0');
  std::mt19937_64 random(size);
  for (size_t i = 0; i + 8 <= size; i += 8) {
    uint64_t word = random();
    memcpy(&payload[i], &word, 8);
  }
  ArtifactHeader header;
  header.parts = parts;
  header.size = payload.size();
  header.checksum = Hash128::of(payload).toHex();
  header.source = "bench.hlo";
  return {encodeArtifactHeader(header) + payload, parts};
}

size_t appendBody(char *data, size_t size, size_t count, void *user) {
  static_cast<std::string *>(user)->append(data, size * count);
  return size * count;
}

/// One row: our operation and its floor, p50 and p99 of each.
void printRow(llvm::StringRef label, const std::vector<double> &ours,
              const std::vector<double> &floor) {
  double p50 = percentile(ours, 50), p99 = percentile(ours, 99);
  double f50 = percentile(floor, 50), f99 = percentile(floor, 99);
  auto time = [](double seconds) {
    return seconds >= 0.01 ? llvm::formatv("{0:f1} ms", seconds * 1e3).str()
                           : llvm::formatv("{0:f0} us", seconds * 1e6).str();
  };
  llvm::outs() << llvm::formatv(
      "{0,-22} fetched into local: p50 {1,9}  p99 {2,9} | floor: p50 {3,9}  "
      "p99 {4,9} | {5:f2}x, +{6} at p50\n",
      label, time(p50), time(p99), time(f50), time(f99), p50 / std::max(f50, 1e-9),
      time(std::max(0.0, p50 - f50)));
}

} // namespace

int kiln::bench::runRemoteBench(const RemoteBenchOptions &options) {
  std::string base = options.directory;
  if (base.empty())
    base = llvm::sys::Process::GetEnv("TMPDIR").value_or("/tmp");
  llvm::SmallString<128> root;
  if (llvm::sys::fs::createUniqueDirectory(base + "/kiln-bench-remote", root)) {
    llvm::errs() << "kiln-bench remote: cannot make a directory in " << base
                 << "\n";
    return 1;
  }
  std::string dir = root.str().str();
  llvm::scope_exit cleanUp([&] {
    llvm::sys::fs::remove_directories(dir);
  });

  // The servers, on free loopback ports.
  Server redis, nginx;
  int redisPort = freePort();
  llvm::sys::fs::create_directories(dir + "/redis");
  bool haveRedis = redis.start(
      "redis-server",
      {"--port", std::to_string(redisPort), "--bind", "127.0.0.1", "--save",
       "", "--appendonly", "no", "--dir", dir + "/redis"},
      redisPort);
  int httpPort = freePort();
  llvm::sys::fs::create_directories(dir + "/nginx/www/cache");
  llvm::sys::fs::create_directories(dir + "/nginx/body");
  {
    std::error_code error;
    llvm::raw_fd_ostream conf(dir + "/nginx/nginx.conf", error);
    conf << "user root;\nworker_processes 1;\ndaemon off;\npid " << dir
         << "/nginx/nginx.pid;\nerror_log " << dir
         << "/nginx/error.log;\nevents { worker_connections 64; }\n"
         << "http {\n  access_log off;\n  sendfile on;\n"
         << "  client_body_temp_path " << dir << "/nginx/body;\n"
         << "  client_max_body_size 0;\n  server {\n    listen 127.0.0.1:"
         << httpPort << ";\n    root " << dir << "/nginx/www;\n"
         << "    location / { dav_methods PUT DELETE; create_full_put_path "
            "on; }\n  }\n}\n";
  }
  bool haveNginx =
      nginx.start("nginx",
                  {"-c", dir + "/nginx/nginx.conf", "-p", dir + "/nginx"},
                  httpPort);

  struct Backend {
    std::string name, url;
  };
  std::vector<Backend> backends = {{"file", "file:" + dir + "/shared"}};
  if (haveRedis)
    backends.push_back(
        {"redis", "redis://127.0.0.1:" + std::to_string(redisPort)});
  else
    llvm::outs() << "(no redis-server: the Redis tier is not measured)\n";
  if (haveNginx)
    backends.push_back(
        {"http", "http://127.0.0.1:" + std::to_string(httpPort) + "/cache"});
  else
    llvm::outs() << "(no nginx: the HTTP tier is not measured)\n";

  llvm::outs() << llvm::formatv(
      "kiln-bench remote: a remote hit fetched into the local tier (lookup, "
      "verification, copy) against reading the same bytes the plain way; "
      "{0} runs of {1} B, {2} runs of {3} MiB\n",
      options.smallRepeat, options.smallBytes, options.largeRepeat,
      options.largeMiB);
  curl_global_init(CURL_GLOBAL_DEFAULT);
  for (const Backend &backend : backends) {
    for (bool large : {false, true}) {
      size_t bytes = large ? (size_t)options.largeMiB << 20 : options.smallBytes;
      unsigned repeat = large ? options.largeRepeat : options.smallRepeat;
      auto [file, parts] = makeCacheFile(backend.name + (large ? "-l" : "-s"),
                                         bytes);
      std::string key = parts.key().toHex();
      auto spec = parseRemoteSpec(backend.url);
      auto storage = spec ? openRemoteStorage(*spec)
                          : llvm::Expected<std::unique_ptr<RemoteStorage>>(
                                spec.takeError());
      if (!storage) {
        llvm::errs() << llvm::toString(storage.takeError()) << "\n";
        return 1;
      }
      if (auto stored = (*storage)->store(key, RemoteEntryKind::Artifact,
                                          file, true);
          !stored) {
        llvm::errs() << llvm::toString(stored.takeError()) << "\n";
        return 1;
      }
      std::string localDir =
          dir + "/local-" + backend.name + (large ? "-large" : "-small");
      auto local = Cache::open(localDir);
      if (!local) {
        llvm::errs() << llvm::toString(local.takeError()) << "\n";
        return 1;
      }
      std::vector<std::unique_ptr<RemoteStorage>> remotes;
      remotes.push_back(std::move(*storage));
      std::string warnings;
      llvm::raw_string_ostream warningStream(warnings);
      TieredCache tiers(std::move(*local), std::move(remotes), "kiln-bench",
                        warningStream);
      std::vector<double> ours, floor;
      // The floor's means, opened once as ours are.
      redisContext *context =
          backend.name == "redis"
              ? redisConnect("127.0.0.1", redisPort)
              : nullptr;
      CURL *curl = backend.name == "http" ? curl_easy_init() : nullptr;
      std::string path = dir + "/shared/" + key.substr(0, 2) + "/" + key;
      std::string url = backend.url + "/" + key;
      for (unsigned run = 0; run < repeat + 1; ++run) {
        llvm::consumeError(tiers.getLocal().remove(key).takeError());
        double start = now();
        auto found = tiers.lookupTiers(key, /*verify=*/true);
        double ourSeconds = now() - start;
        if (!found || !found->fetched) {
          llvm::errs() << "kiln-bench remote: " << backend.name
                       << ": the hit was not fetched "
                       << (found ? warnings
                                 : llvm::toString(found.takeError()))
                       << "\n";
          return 1;
        }
        start = now();
        size_t got = 0;
        if (context) {
          auto *reply = static_cast<redisReply *>(
              redisCommand(context, "GET kiln:a:%s", key.c_str()));
          got = reply ? reply->len : 0;
          freeReplyObject(reply);
        } else if (curl) {
          // Sized once, as a careful client would (and the HTTP tier does).
          std::string body;
          body.reserve(file.size());
          curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
          curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, appendBody);
          curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
          curl_easy_perform(curl);
          got = body.size();
        } else {
          int fd = ::open(path.c_str(), O_RDONLY);
          std::string body(file.size(), '\0');
          ssize_t n = fd >= 0 ? ::read(fd, &body[0], body.size()) : -1;
          got = n > 0 ? n : 0;
          ::close(fd);
        }
        double floorSeconds = now() - start;
        if (got != file.size()) {
          llvm::errs() << "kiln-bench remote: the floor read " << got
                       << " bytes, not " << file.size() << "\n";
          return 1;
        }
        if (run == 0)
          continue; // warm-up
        ours.push_back(ourSeconds);
        floor.push_back(floorSeconds);
      }
      if (context)
        redisFree(context);
      if (curl)
        curl_easy_cleanup(curl);
      printRow(backend.name + (large ? " " + std::to_string(options.largeMiB) +
                                           " MiB"
                                     : " " + std::to_string(bytes) + " B"),
               ours, floor);
    }
  }

  // kiln cache check --fetch of a graph set, everything in one remote.
  std::string kiln = llvm::sys::path::parent_path(
                         llvm::sys::fs::getMainExecutable(nullptr, nullptr))
                         .str() +
                     "/kiln";
  if (!llvm::sys::fs::can_execute(kiln)) {
    llvm::outs() << "(no kiln beside kiln-bench: the check is not measured)\n";
    return 0;
  }
  std::vector<std::string> graphs;
  llvm::sys::fs::create_directories(dir + "/graphs");
  auto [artifact, unused] = makeCacheFile("graph artifact", 1 << 20);
  (void)unused;
  std::string artifactPath = dir + "/artifact.bin";
  {
    std::error_code error;
    llvm::raw_fd_ostream os(artifactPath, error);
    os << artifact;
  }
  for (unsigned i = 1; i <= options.graphs; ++i) {
    std::string path = llvm::formatv("{0}/graphs/g{1}.hlo", dir, i).str();
    std::error_code error;
    llvm::raw_fd_ostream os(path, error);
    os << "HloModule bench_" << i
       << ", entry_computation_layout={(f32[64]{0})->f32[64]{0}}\n\n"
       << "ENTRY main {\n  p = f32[64]{0} parameter(0)\n"
       << "  c = f32[] constant(" << i << ")\n"
       << "  b = f32[64]{0} broadcast(c), dimensions={}\n"
       << "  ROOT r = f32[64]{0} add(p, b)\n}\n";
    graphs.push_back(path);
  }
  llvm::outs() << llvm::formatv(
      "kiln cache check --fetch of {0} graphs (1 MiB artifacts) on an empty "
      "local cache, everything in one remote, against the same check on a "
      "local cache that holds them; best of {1}\n",
      options.graphs, options.checkRepeat);
  for (const Backend &backend : backends) {
    std::string warm = dir + "/check-warm-" + backend.name;
    for (const std::string &graph : graphs) {
      RunResult put = runTimed({kiln, "cache", "put", "--cache-dir", warm,
                                "--remote", backend.url, graph, artifactPath},
                               dir + "/put.log");
      if (!put.ok) {
        llvm::errs() << "kiln-bench remote: kiln cache put failed: "
                     << put.log << "\n";
        return 1;
      }
    }
    double fetchBest = 1e9, warmBest = 1e9;
    for (unsigned run = 0; run < options.checkRepeat; ++run) {
      std::string fresh =
          llvm::formatv("{0}/check-fresh-{1}-{2}", dir, backend.name, run);
      std::vector<std::string> argv = {kiln,       "cache",     "check",
                                       "--fetch",  "--require-all",
                                       "--cache-dir", fresh, "--remote",
                                       backend.url};
      llvm::append_range(argv, graphs);
      RunResult fetched = runTimed(argv, dir + "/fetch.log");
      std::vector<std::string> warmArgv = {kiln, "cache", "check",
                                           "--require-all", "--cache-dir",
                                           warm};
      llvm::append_range(warmArgv, graphs);
      RunResult local = runTimed(warmArgv, dir + "/warm.log");
      if (!fetched.ok || !local.ok) {
        llvm::errs() << "kiln-bench remote: kiln cache check failed: "
                     << fetched.log << local.log << "\n";
        return 1;
      }
      fetchBest = std::min(fetchBest, fetched.seconds);
      warmBest = std::min(warmBest, local.seconds);
    }
    llvm::outs() << llvm::formatv(
        "{0,-6} check --fetch on an empty cache {1:f1} ms | all local {2:f1} "
        "ms | {3:f2}x\n",
        backend.name, fetchBest * 1e3, warmBest * 1e3, fetchBest / warmBest);
  }
  return 0;
}
