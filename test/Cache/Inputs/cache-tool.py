"""Helpers for the `kiln cache` tests that kiln itself does not offer.

  write-artifact PATH SIZE SEED   PATH gets SIZE pseudo-random bytes (every
                                  byte value, no trailing newline)
  flip-bit DIR [OFFSET]           flips the lowest bit of byte OFFSET (default:
                                  the middle byte) of every non-empty
                                  artifact in the cache DIR; prints how many
  record-failure DIR KILN GRAPH TEXT [KILN-OPTIONS...]
                                  records a failed compilation of GRAPH with
                                  the log TEXT, as a compile driver would
                                  (`kiln cache put --failed --log`)
  set-version DIR N               sets PRAGMA user_version of DIR/index.db
  age-temporaries DIR HOURS       makes the files in DIR/tmp HOURS old
"""

import json
import os
import random
import sqlite3
import subprocess
import sys
import time


def write_artifact(path, size, seed):
    rng = random.Random(int(seed))
    data = bytes(rng.getrandbits(8) for _ in range(int(size)))
    with open(path, "wb") as f:
        f.write(data)


def artifacts(cache_dir):
    root = os.path.join(cache_dir, "objects")
    for parent, _, files in sorted(os.walk(root)):
        for name in sorted(files):
            yield os.path.join(parent, name)


def flip_bit(cache_dir, offset=None):
    count = 0
    for path in artifacts(cache_dir):
        with open(path, "r+b") as f:
            data = bytearray(f.read())
            if not data:
                continue
            where = len(data) // 2 if offset is None else int(offset)
            data[where] ^= 1
            f.seek(0)
            f.write(data)
        count += 1
    print("flipped a bit in %d artifacts" % count)


def record_failure(cache_dir, kiln, graph, text, *options):
    log = os.path.join(cache_dir, "..", "failure-%d.log" % os.getpid())
    with open(log, "w") as f:
        f.write(text + "\n")
    out = subprocess.run([kiln, "cache", "put", "--failed", "--log", log,
                          "--compile-seconds", "3", graph, "--cache-dir",
                          cache_dir] + list(options),
                         check=True, stdout=subprocess.PIPE).stdout
    os.remove(log)
    print(out.decode().strip())


def set_version(cache_dir, version):
    db = sqlite3.connect(os.path.join(cache_dir, "index.db"))
    db.execute("PRAGMA user_version = %d" % int(version))
    db.commit()
    db.close()


def age_temporaries(cache_dir, hours):
    then = time.time() - float(hours) * 3600
    tmp = os.path.join(cache_dir, "tmp")
    for name in os.listdir(tmp):
        os.utime(os.path.join(tmp, name), (then, then))


COMMANDS = {
    "write-artifact": write_artifact,
    "flip-bit": flip_bit,
    "record-failure": record_failure,
    "set-version": set_version,
    "age-temporaries": age_temporaries,
}

if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
    sys.exit(__doc__)
COMMANDS[sys.argv[1]](*sys.argv[2:])
