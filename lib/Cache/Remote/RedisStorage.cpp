//===- RedisStorage.cpp - a remote tier in Redis ----------------*- C++ -*-===//
//
// This file implements `redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]` and
// `redis+unix:SOCKET` through hiredis. Under the tier's prefix (default
// `kiln:`):
//
//   <prefix>a:<key>   an artifact's cache file (ArtifactHeader.h)
//   <prefix>f:<key>   a failed compilation's log, same format
//   <prefix>l:<key>   a lease: its owner ("host:pid:token"), with a TTL
//
// Entries are written with SET NX (store if absent), optionally with an
// expiry (`expire=SECONDS`). A lease is Redis's own lock pattern: `SET key
// owner NX PX ttl`, renewed and released only through a script that
// compares the owner first, so that no process ends or extends another's
// lease. Values above Redis's default bulk limit (512 MiB) are refused with
// a message naming it rather than half stored.
//
//===----------------------------------------------------------------------===//

#include "kiln/Cache/Remote/RemoteStorage.h"

#include "llvm/ADT/StringExtras.h"

#include <hiredis/hiredis.h>

#include <cerrno>
#include <csignal>
#include <sys/time.h>

using namespace kiln;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

namespace {

/// Redis's default `proto-max-bulk-len`: no value may be larger.
constexpr uint64_t kMaxValueBytes = 512ull << 20;

/// Ends `owner`'s lease; 1 if it was theirs.
constexpr const char *kReleaseScript =
    "if redis.call('get', KEYS[1]) == ARGV[1] then "
    "return redis.call('del', KEYS[1]) else return 0 end";
/// Claims KEYS[1] for ARGV[1] for ARGV[2] ms; 1 if claimed: a free key, the
/// owner's own lease, or a lease without an expiry or with one further off
/// than any lease kiln takes (an hour: a forged or broken one).
constexpr const char *kClaimScript =
    "if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then "
    "return 1 end "
    "local ttl = redis.call('pttl', KEYS[1]) "
    "if redis.call('get', KEYS[1]) == ARGV[1] or ttl < 0 or ttl > 3600000 "
    "then redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end "
    "return 0";
/// Replaces the lease ARGV[1] (seen held by a dead owner) with ARGV[2]'s
/// for ARGV[3] ms; 1 if it was still ARGV[1]'s.
constexpr const char *kTakeOverScript =
    "if redis.call('get', KEYS[1]) == ARGV[1] then "
    "redis.call('set', KEYS[1], ARGV[2], 'PX', ARGV[3]) return 1 end "
    "return 0";
/// Extends `owner`'s lease to ARGV[2] ms; 1 if it was theirs.
constexpr const char *kRenewScript =
    "if redis.call('get', KEYS[1]) == ARGV[1] then "
    "return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";

struct ReplyDeleter {
  void operator()(redisReply *reply) const { freeReplyObject(reply); }
};
using Reply = std::unique_ptr<redisReply, ReplyDeleter>;

timeval toTimeval(unsigned ms) {
  timeval tv;
  tv.tv_sec = ms / 1000;
  tv.tv_usec = (ms % 1000) * 1000;
  return tv;
}

class RedisStorage : public RemoteStorage {
public:
  RedisStorage(RemoteSpec spec) : RemoteStorage(std::move(spec)) {
    auto found = this->spec.attributes.find("prefix");
    prefix = found == this->spec.attributes.end() ? "kiln:" : found->second;
    found = this->spec.attributes.find("expire");
    if (found != this->spec.attributes.end())
      expireSeconds = found->second;
  }
  ~RedisStorage() override {
    if (context)
      redisFree(context);
  }

  /// Parses the URL; an error message when it is malformed.
  std::string parseUrl() {
    StringRef url = spec.url;
    if (spec.scheme == "redis+unix") {
      socketPath = url.drop_front(11).str();
      if (StringRef(socketPath).starts_with("//"))
        socketPath = StringRef(socketPath).drop_front(2).str();
      return "";
    }
    StringRef rest = url.drop_front(8); // redis://
    auto [authority, path] = rest.split('/');
    if (authority.contains('@')) {
      auto [credentials, hostPart] = authority.rsplit('@');
      authority = hostPart;
      if (credentials.contains(':')) {
        auto [user, password] = credentials.split(':');
        userName = user.str();
        this->password = password.str();
      } else {
        this->password = credentials.str();
      }
    }
    StringRef portText;
    if (authority.starts_with("[")) {
      size_t close = authority.find(']');
      if (close == StringRef::npos)
        return "malformed IPv6 host";
      host = authority.slice(1, close).str();
      StringRef after = authority.drop_front(close + 1);
      if (after.consume_front(":"))
        portText = after;
    } else {
      auto [hostText, portPart] = authority.split(':');
      host = hostText.str();
      portText = portPart;
    }
    if (host.empty())
      return "no host";
    if (!portText.empty() &&
        (portText.getAsInteger(10, port) || port <= 0 || port > 65535))
      return "malformed port '" + portText.str() + "'";
    if (!path.empty() && (path.getAsInteger(10, database) || database < 0))
      return "malformed database number '" + path.str() + "'";
    return "";
  }

  Expected<std::optional<std::string>> fetch(StringRef key,
                                             RemoteEntryKind kind) override {
    return get(entryKey(key, kind), kMaxRemoteEntryBytes);
  }

  Expected<bool> store(StringRef key, RemoteEntryKind kind, StringRef file,
                       bool overwrite) override {
    if (file.size() > kMaxValueBytes)
      return makeRemoteError(
          getName() + ": an entry of " + std::to_string(file.size()) +
          " bytes is over Redis's limit on a value (512 MiB, "
          "proto-max-bulk-len); it is kept in the other tiers only");
    std::string name = entryKey(key, kind);
    std::vector<StringRef> args = {"SET", name, file};
    if (!overwrite)
      args.push_back("NX");
    if (!expireSeconds.empty()) {
      args.push_back("EX");
      args.push_back(expireSeconds);
    }
    Expected<Reply> reply = command(args);
    if (!reply)
      return reply.takeError();
    if ((*reply)->type == REDIS_REPLY_NIL)
      return false;
    if ((*reply)->type != REDIS_REPLY_STATUS)
      return unexpected("SET", **reply);
    return true;
  }

  Expected<bool> exists(StringRef key, RemoteEntryKind kind) override {
    Expected<Reply> reply = command({"EXISTS", entryKey(key, kind)});
    if (!reply)
      return reply.takeError();
    if ((*reply)->type != REDIS_REPLY_INTEGER)
      return unexpected("EXISTS", **reply);
    return (*reply)->integer > 0;
  }

  Expected<bool> remove(StringRef key, RemoteEntryKind kind) override {
    Expected<Reply> reply = command({"DEL", entryKey(key, kind)});
    if (!reply)
      return reply.takeError();
    if ((*reply)->type != REDIS_REPLY_INTEGER)
      return unexpected("DEL", **reply);
    return (*reply)->integer > 0;
  }

  Expected<std::vector<std::string>> listKeys() override {
    std::string start = prefix + "a:";
    return scanNames(start, [&](StringRef name) {
      return name.size() == 32 ? std::optional<std::string>(name.str())
                               : std::nullopt;
    });
  }

  bool hasRunFiles() const override { return true; }

  Error putRunFile(StringRef name, StringRef bytes) override {
    if (!isRunFileName(name))
      return makeRemoteError("'" + name + "' is not a run file's name");
    std::string key = prefix + "run:" + name.str();
    // A run's files go a week after their last write.
    Expected<Reply> reply = command({"SET", key, bytes, "EX", "604800"});
    if (!reply)
      return reply.takeError();
    if ((*reply)->type != REDIS_REPLY_STATUS)
      return unexpected("SET", **reply);
    return Error::success();
  }

  Expected<std::optional<std::string>> getRunFile(StringRef name) override {
    if (!isRunFileName(name))
      return makeRemoteError("'" + name + "' is not a run file's name");
    return get(prefix + "run:" + name.str(), kMaxRunFileBytes);
  }

  Expected<std::vector<std::string>>
  listRunFiles(StringRef directory) override {
    if (!isRunFileName(directory))
      return makeRemoteError("'" + directory + "' is not a run file's name");
    std::string start = prefix + "run:" + directory.str() + "/";
    // Directly in `directory`: no further '/'.
    return scanNames(start, [&](StringRef name) {
      return name.contains('/') ? std::nullopt
                                : std::optional<std::string>(name.str());
    });
  }

  bool hasLeases() const override { return true; }

  Expected<RemoteClaim> claim(StringRef key, const LeaseOwner &owner,
                              unsigned ttlMs) override {
    std::string name = prefix + "l:" + key.str();
    std::string value = owner.toString();
    std::string ttl = std::to_string(ttlMs);
    Expected<Reply> reply =
        command({"EVAL", kClaimScript, "1", name, value, ttl});
    if (!reply)
      return reply.takeError();
    if ((*reply)->type != REDIS_REPLY_INTEGER)
      return unexpected("EVAL", **reply);
    if ((*reply)->integer == 1)
      return RemoteClaim::Claimed;
    // On this host a dead owner is known at once: its lease is taken over
    // (only if it is still the one seen), without waiting for its TTL.
    Expected<Reply> held = command({"GET", name});
    if (!held)
      return held.takeError();
    if ((*held)->type != REDIS_REPLY_STRING)
      return RemoteClaim::HeldElsewhere;
    std::string seen((*held)->str, (*held)->len);
    auto [ownerHost, rest] = StringRef(seen).split(':');
    int64_t pid = 0;
    if (ownerHost != owner.host || rest.split(':').first.getAsInteger(10, pid) ||
        pid <= 0 || ::kill(pid, 0) == 0 || errno != ESRCH)
      return RemoteClaim::HeldElsewhere;
    Expected<Reply> taken =
        command({"EVAL", kTakeOverScript, "1", name, seen, value, ttl});
    if (!taken)
      return taken.takeError();
    if ((*taken)->type != REDIS_REPLY_INTEGER)
      return unexpected("EVAL", **taken);
    return (*taken)->integer == 1 ? RemoteClaim::Claimed
                                  : RemoteClaim::HeldElsewhere;
  }

  Error renew(StringRef key, const LeaseOwner &owner, unsigned ttlMs) override {
    std::string name = prefix + "l:" + key.str();
    Expected<Reply> reply = command({"EVAL", kRenewScript, "1", name,
                                     owner.toString(), std::to_string(ttlMs)});
    if (!reply)
      return reply.takeError();
    if ((*reply)->type != REDIS_REPLY_INTEGER)
      return unexpected("EVAL", **reply);
    if ((*reply)->integer != 1)
      return makeRemoteError(getName() + ": the lease on " + key +
                             " is no longer held by " + owner.toString());
    return Error::success();
  }

  Error release(StringRef key, const LeaseOwner &owner) override {
    std::string name = prefix + "l:" + key.str();
    Expected<Reply> reply =
        command({"EVAL", kReleaseScript, "1", name, owner.toString()});
    if (!reply)
      return reply.takeError();
    if ((*reply)->type != REDIS_REPLY_INTEGER)
      return unexpected("EVAL", **reply);
    return Error::success();
  }

private:
  /// The names of the keys that start with `start` (SCAN, so the server
  /// is never blocked), less `start`, as `keep` maps them (none: left
  /// out); sorted, each once.
  Expected<std::vector<std::string>>
  scanNames(const std::string &start,
            llvm::function_ref<std::optional<std::string>(StringRef)> keep) {
    std::vector<std::string> names;
    std::string cursor = "0";
    do {
      Expected<Reply> reply =
          command({"SCAN", cursor, "MATCH", start + "*", "COUNT", "1000"});
      if (!reply)
        return reply.takeError();
      redisReply &r = **reply;
      if (r.type != REDIS_REPLY_ARRAY || r.elements != 2 ||
          r.element[0]->type != REDIS_REPLY_STRING ||
          r.element[1]->type != REDIS_REPLY_ARRAY)
        return unexpected("SCAN", r);
      cursor.assign(r.element[0]->str, r.element[0]->len);
      for (size_t i = 0; i < r.element[1]->elements; ++i) {
        redisReply *item = r.element[1]->element[i];
        StringRef name(item->str, item->len);
        if (item->type == REDIS_REPLY_STRING && name.consume_front(start))
          if (std::optional<std::string> kept = keep(name))
            names.push_back(std::move(*kept));
      }
    } while (cursor != "0");
    llvm::sort(names);
    names.erase(std::unique(names.begin(), names.end()), names.end());
    return names;
  }

  /// The string value of `name`, or none; a value of another type or
  /// over `maxBytes` is that entry's error.
  Expected<std::optional<std::string>> get(const std::string &name,
                                           uint64_t maxBytes) {
    Expected<Reply> reply = command({"GET", name});
    if (!reply)
      return reply.takeError();
    if ((*reply)->type == REDIS_REPLY_NIL)
      return std::optional<std::string>();
    if ((*reply)->type != REDIS_REPLY_STRING)
      return unexpected("GET", **reply);
    if ((*reply)->len > maxBytes)
      return makeRemoteEntryError("the value of " + name + " has " +
                                  std::to_string((*reply)->len) +
                                  " bytes, more than it may have");
    return std::optional<std::string>(
        std::string((*reply)->str, (*reply)->len));
  }

  std::string entryKey(StringRef key, RemoteEntryKind kind) const {
    return prefix + (kind == RemoteEntryKind::Artifact ? "a:" : "f:") +
           key.str();
  }

  /// The context's error as a RemoteError; the connection is dropped (a
  /// context that failed once is not used again).
  Error contextError(StringRef what) {
    std::string message = context ? context->errstr : "out of memory";
    bool timedOut = context && context->err == REDIS_ERR_IO &&
                    (errno == EAGAIN || errno == EWOULDBLOCK ||
                     errno == ETIMEDOUT || errno == EINPROGRESS);
    if (context && context->err == REDIS_ERR_EOF)
      message = "the server closed the connection";
    if (context) {
      redisFree(context);
      context = nullptr;
    }
    return makeRemoteError(getName() + ": " + what + ": " +
                               (timedOut ? "timed out (" + message + ")"
                                         : message),
                           timedOut);
  }

  Error unexpected(StringRef commandName, const redisReply &reply) {
    // Another kind of value under an entry's name is that entry's problem.
    if (reply.type == REDIS_REPLY_ERROR &&
        StringRef(reply.str, reply.len).starts_with("WRONGTYPE"))
      return makeRemoteEntryError(commandName + ": " +
                                  StringRef(reply.str, reply.len));
    if (reply.type == REDIS_REPLY_ERROR)
      return makeRemoteError(getName() + ": " + commandName + ": " +
                             StringRef(reply.str, reply.len));
    return makeRemoteError(getName() + ": " + commandName +
                           ": unexpected reply of type " +
                           std::to_string(reply.type));
  }

  Error connect() {
    if (context)
      return Error::success();
    timeval connectTimeout = toTimeval(spec.connectTimeoutMs);
    context = socketPath.empty()
                  ? redisConnectWithTimeout(host.c_str(), port, connectTimeout)
                  : redisConnectUnixWithTimeout(socketPath.c_str(),
                                                connectTimeout);
    if (!context || context->err)
      return contextError("connecting");
    if (redisSetTimeout(context, toTimeval(spec.operationTimeoutMs)) !=
        REDIS_OK)
      return contextError("setting the timeout");
    auto simple = [&](std::vector<StringRef> args) -> Error {
      Expected<Reply> reply = rawCommand(args);
      if (!reply)
        return reply.takeError();
      if ((*reply)->type == REDIS_REPLY_ERROR) {
        Error error = unexpected(args[0], **reply);
        redisFree(context);
        context = nullptr;
        return error;
      }
      return Error::success();
    };
    if (!password.empty()) {
      std::vector<StringRef> auth = {"AUTH"};
      if (!userName.empty())
        auth.push_back(userName);
      auth.push_back(password);
      if (Error error = simple(auth))
        return error;
    }
    if (database)
      if (Error error = simple({"SELECT", std::to_string(database)}))
        return error;
    return Error::success();
  }

  Expected<Reply> rawCommand(llvm::ArrayRef<StringRef> args) {
    std::vector<const char *> argv;
    std::vector<size_t> lengths;
    for (StringRef arg : args) {
      argv.push_back(arg.data());
      lengths.push_back(arg.size());
    }
    auto *reply = static_cast<redisReply *>(redisCommandArgv(
        context, (int)argv.size(), argv.data(), lengths.data()));
    if (!reply)
      return contextError(args[0]);
    return Reply(reply);
  }

  /// Runs one command, connecting first if needed.
  Expected<Reply> command(std::vector<StringRef> args) {
    // (The strings behind `args` outlive the call: they are the caller's.)
    if (Error error = connect())
      return std::move(error);
    return rawCommand(args);
  }

  std::string prefix;
  std::string expireSeconds;
  std::string host;
  int port = 6379;
  int database = 0;
  std::string userName;
  std::string password;
  std::string socketPath;
  redisContext *context = nullptr;
};

} // namespace

std::unique_ptr<RemoteStorage> kiln::createRedisStorage(const RemoteSpec &spec,
                                                        std::string &error) {
  auto storage = std::make_unique<RedisStorage>(spec);
  error = storage->parseUrl();
  if (!error.empty())
    return nullptr;
  return storage;
}
