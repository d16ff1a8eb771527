-- The index of a kiln cache directory (index.db), format version 3.
--
-- The version lives in PRAGMA user_version and in meta('format_version').
-- Invariants (see FORMAT.md):
--  * an entries row with status 'ok' names a file objects/<k0k1>/<key> that
--    was fsynced and renamed into place before the row was committed;
--  * checksum is the XXH3-128 of that file's bytes; a mismatch on read makes
--    the entry a miss and removes it;
--  * a leases row means some process is compiling that key now.

CREATE TABLE IF NOT EXISTS meta (
  name  TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS entries (
  key             TEXT PRIMARY KEY,   -- 32 hex digits (XXH3-128)
  status          TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
  size            INTEGER NOT NULL,   -- artifact bytes; 0 when failed
  checksum        TEXT NOT NULL,      -- XXH3-128 of the artifact; '' when failed
  compile_seconds REAL NOT NULL,      -- how long the compilation took
  created_ms      INTEGER NOT NULL,   -- Unix time in milliseconds
  last_used_ms    INTEGER NOT NULL,   -- for LRU eviction
  hits            INTEGER NOT NULL DEFAULT 0,
  -- The key's parts, so that a miss can be explained part by part.
  signature       TEXT NOT NULL,
  target_triple   TEXT NOT NULL,
  cpu             TEXT NOT NULL,
  cpu_features    TEXT NOT NULL,
  options         TEXT NOT NULL,
  compiler        TEXT NOT NULL,
  format_version  INTEGER NOT NULL,
  graph_name      TEXT NOT NULL DEFAULT '', -- its module name (version 3)
  source          TEXT NOT NULL,      -- the graph file it came from
  sketch          BLOB                -- per-op fingerprints, little-endian u64
) WITHOUT ROWID;

CREATE INDEX IF NOT EXISTS entries_by_last_used ON entries (last_used_ms);
CREATE INDEX IF NOT EXISTS entries_by_signature ON entries (signature);

CREATE TABLE IF NOT EXISTS leases (
  key         TEXT PRIMARY KEY,
  host        TEXT NOT NULL,
  pid         INTEGER NOT NULL,
  acquired_ms INTEGER NOT NULL,
  expires_ms  INTEGER NOT NULL
) WITHOUT ROWID;

-- What `kiln cache check` learnt about graph files: a file whose bytes
-- (content, XXH3-128) were keyed by this kiln build (compiler) before has
-- this signature, sketch and module name, so it need not be imported
-- again. A row of another build is never read; the oldest rows go when the
-- memo grows past its bound. A rowid table with the sketch (8 bytes per op)
-- last: a lookup searches the small (content, compiler) index and reads the
-- row's leading columns, never the sketch's overflow pages (a WITHOUT ROWID
-- table compares whole records while it searches, reading every sketch on
-- the way).
CREATE TABLE IF NOT EXISTS graph_memo (
  content          TEXT NOT NULL,
  compiler         TEXT NOT NULL,
  signature        TEXT NOT NULL,
  graph_name       TEXT NOT NULL,
  elided_constants INTEGER NOT NULL,
  used_ms          INTEGER NOT NULL,
  sketch           BLOB,
  UNIQUE (content, compiler)
);

CREATE INDEX IF NOT EXISTS graph_memo_by_use ON graph_memo (used_ms);

-- Counters: hits, misses, corrupt (checksum mismatches found on read), and
-- misses by reason (misses.<reason>).
CREATE TABLE IF NOT EXISTS stats (
  name  TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
