"""Fuzzes what `kiln run` reads before it maps code: artifact manifests and
cache-entry headers, mutated by truncation, bit flips, deep nesting and
huge numbers (seeded, so that a failure can be replayed). Every case must
end in an exit status (0, 1 or 2), never a signal or a hang.

  fuzz-artifacts.py KILN DIR ARTIFACT ENTRY [CASES]
"""

import ctypes
import json
import random
import struct
import subprocess
import sys

xxhash = ctypes.CDLL("libxxhash.so.0")
xxhash.XXH3_64bits.restype = ctypes.c_uint64
xxhash.XXH3_64bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
FIXED = 40


def split_artifact(data):
    rest = data[len(b"KILN-ARTIFACT 1\n"):]
    length, rest = rest.split(b"\n", 1)
    return rest[:int(length)], rest[int(length):]


def join_artifact(manifest, tail):
    return (b"KILN-ARTIFACT 1\n" + str(len(manifest)).encode() + b"\n" +
            manifest + tail)


def seal_entry(json_bytes, rest, version=2, sketch=0, graph=0):
    """A cache file whose header checksum is right for its body."""
    body = json_bytes + rest[:8 * sketch + graph]
    return (b"KILNART\n" + struct.pack(
        "<IIQQQ", version, len(json_bytes), sketch, graph,
        xxhash.XXH3_64bits(body, len(body))) + json_bytes + rest)


def huge_numbers(text, rng):
    """A JSON text with some numbers made huge, negative or fractional."""
    values = [b"9223372036854775807", b"18446744073709551616", b"-1",
              b"1e308", b"-9223372036854775808", b"0.5", b"1e400",
              b"4294967296", b"99999999999999999999999999"]
    out, i = bytearray(), 0
    while i < len(text):
        if text[i:i + 1].isdigit() and rng.random() < 0.3:
            j = i
            while j < len(text) and text[j:j + 1].isdigit():
                j += 1
            out += rng.choice(values)
            i = j
        else:
            out += text[i:i + 1]
            i += 1
    return bytes(out)


def deep(text, rng):
    at = rng.randrange(len(text))
    depth = rng.choice([100, 10000, 200000])
    return text[:at] + b"[" * depth + text[at:]


def flips(text, rng, count):
    data = bytearray(text)
    for _ in range(count):
        at = rng.randrange(len(data))
        data[at] ^= 1 << rng.randrange(8)
    return bytes(data)


def main(argv):
    kiln, work, artifact_path, entry_path = argv[1:5]
    cases = int(argv[5]) if len(argv) > 5 else 120
    rng = random.Random(20261127)
    artifact = open(artifact_path, "rb").read()
    entry = open(entry_path, "rb").read()
    manifest, tail = split_artifact(artifact)
    _, json_len, sketch, graph, _ = struct.unpack_from("<IIQQQ", entry, 8)
    header_json = entry[FIXED:FIXED + json_len]
    entry_rest = entry[FIXED + json_len:]

    def artifact_case():
        kind = rng.choice(["truncate", "flip", "huge", "deep", "json"])
        if kind == "truncate":
            return kind, artifact[:rng.randrange(len(artifact))]
        if kind == "flip":
            return kind, join_artifact(flips(manifest, rng, rng.randint(1, 8)),
                                       tail)
        if kind == "huge":
            return kind, join_artifact(huge_numbers(manifest, rng), tail)
        if kind == "deep":
            return kind, join_artifact(deep(manifest, rng), tail)
        # Structure kept, values of other types.
        m = json.loads(manifest)
        field = rng.choice(["inputs", "outputs", "checks", "entry",
                            "graph_outputs", "required_features", "target"])
        m[field] = rng.choice([None, 1, -1, "x", [], {}, [[]], [{"type": 7}],
                               [{"type": "tensor<2xf32>", "shape": [2],
                                 "bytes": 8}] * 3, 2**70, 1e300])
        return kind + ":" + field, join_artifact(json.dumps(m).encode(), tail)

    def entry_case():
        kind = rng.choice(["truncate", "flip", "huge", "deep", "lengths"])
        if kind == "truncate":
            return kind, entry[:rng.randrange(len(entry))]
        if kind == "lengths":
            fields = [2, json_len, sketch, graph]
            which = rng.randrange(4)
            fields[which] = rng.choice(
                [0, 1, 2**31, 2**32 - 1, 2**63, 2**64 - 1]) % (
                    2**32 if which < 2 else 2**64)
            body = entry[FIXED:]
            return kind, (b"KILNART\n" + struct.pack("<IIQQ", *fields) +
                          entry[32:40] + body)
        if kind == "flip":
            text = flips(header_json, rng, rng.randint(1, 8))
        elif kind == "huge":
            text = huge_numbers(header_json, rng)
        else:
            text = deep(header_json, rng)
        return kind, seal_entry(text, entry_rest, sketch=sketch, graph=graph)

    failures, counts = [], {}
    for number in range(cases):
        kind, data = artifact_case() if number % 2 == 0 else entry_case()
        what = ("artifact " if number % 2 == 0 else "entry ") + kind
        path = "%s/case-%d" % (work, number)
        open(path, "wb").write(data)
        try:
            result = subprocess.run([kiln, "run", path], capture_output=True,
                                    timeout=60)
            code = result.returncode
        except subprocess.TimeoutExpired:
            code = "hang"
        counts[code] = counts.get(code, 0) + 1
        if code not in (0, 1, 2):
            failures.append("case %d (%s): %s\n%s" % (
                number, what, code, result.stderr.decode()[-500:]
                if code != "hang" else ""))
    print("%d cases: %s" % (cases, ", ".join(
        "%s %d" % ("exit %s" % k if isinstance(k, int) else k, v)
        for k, v in sorted(counts.items(), key=str))))
    for failure in failures:
        print("FAILED " + failure)
    print("crashes or hangs: %d" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
