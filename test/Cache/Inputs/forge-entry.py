"""Forges cache entries and artifacts as an attacker with write access would.

Cache files (cache/FORMAT.md): the magic, the header's version, lengths,
an XXH3-64 of the header's body (recomputed here through libxxhash, so
that a forged header passes the damage check and reaches the parsers),
the JSON, the sketch, the graph, the payload. Artifacts (the payload):
`KILN-ARTIFACT 1`, the manifest's length, the manifest, the object's
length, the object.

  forge-entry.py copy-signatures FROM TO   TO carries FROM's signatures
  forge-entry.py swap-payload FILE OTHER   FILE's payload (and its size and
                                           checksum) become OTHER's
  forge-entry.py deep-json FILE DEPTH      the header's JSON nests DEPTH deep
  forge-entry.py set-header FILE NAME JSON a header field set to JSON
  forge-entry.py manifest ART OUT EDIT     OUT is ART with its manifest
                                           edited (see edit_manifest)
  forge-entry.py pack ART OBJECT OUT       OUT is ART's manifest with OBJECT
                                           as its code
  forge-entry.py buffer-record ART         assembly of the kiln_buffers
                                           record that ART's manifest needs
"""

import ctypes
import json
import struct
import sys

MAGIC = b"KILNART\n"
FIXED = 8 + 4 + 4 + 8 + 8 + 8

xxhash = ctypes.CDLL("libxxhash.so.0")
xxhash.XXH3_64bits.restype = ctypes.c_uint64
xxhash.XXH3_64bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
xxhash.XXH3_128bits.restype = None


def read_entry(path):
    data = open(path, "rb").read()
    assert data.startswith(MAGIC), path
    version, json_len, sketch_count, graph_len, _ = struct.unpack_from(
        "<IIQQQ", data, 8)
    at = FIXED
    header = data[at:at + json_len]
    at += json_len
    sketch = data[at:at + 8 * sketch_count]
    at += 8 * sketch_count
    graph = data[at:at + graph_len]
    at += graph_len
    return {"version": version, "json": header, "sketch": sketch,
            "graph": graph, "payload": data[at:]}


def write_entry(path, entry):
    body = entry["json"] + entry["sketch"] + entry["graph"]
    fixed = MAGIC + struct.pack(
        "<IIQQQ", entry["version"], len(entry["json"]),
        len(entry["sketch"]) // 8, len(entry["graph"]),
        xxhash.XXH3_64bits(body, len(body)))
    with open(path, "wb") as out:
        out.write(fixed + body + entry["payload"])


def read_artifact(data):
    assert data.startswith(b"KILN-ARTIFACT 1\n")
    rest = data[len(b"KILN-ARTIFACT 1\n"):]
    length, rest = rest.split(b"\n", 1)
    manifest, rest = rest[:int(length)], rest[int(length):]
    length, rest = rest.split(b"\n", 1)
    return manifest, rest[:int(length)]


def write_artifact(manifest, code):
    return (b"KILN-ARTIFACT 1\n" + str(len(manifest)).encode() + b"\n" +
            manifest + str(len(code)).encode() + b"\n" + code)


def edit_manifest(manifest, edit):
    """The hostile manifests of the loader's regression test."""
    if edit == "deep":
        return b'{"entry":' + b"[" * 100000 + b"]" * 100000 + b"}"
    m = json.loads(manifest)
    if edit == "entry-abort":
        m["entry"] = "abort"
    elif edit == "output-bytes-small":
        m["outputs"][0]["bytes"] = 4
    elif edit == "type-larger":
        m["outputs"][0]["type"] = "tensor<100000x100000xf32>"
    elif edit == "huge-input":
        m["inputs"][0]["shape"] = [2**40, 2**40]
        m["inputs"][0]["type"] = "tensor<%dx%dxf32>" % (2**40, 2**40)
        m["inputs"][0]["bytes"] = 2**62
    elif edit == "big-input":
        m["inputs"][0]["shape"] = [100000, 100000]
        m["inputs"][0]["type"] = "tensor<100000x100000xf32>"
        m["inputs"][0]["bytes"] = 4 * 10**10
    elif edit == "negative-dim":
        m["inputs"][0]["shape"][0] = -1
    elif edit == "bad-type":
        m["inputs"][0]["type"] = "memref<?xf32>"
    elif edit == "check-out-of-range":
        m["checks"] = [{"actual": 1000}]
    elif edit == "graph-outputs":
        m["graph_outputs"] = 1 << 40
    else:
        raise SystemExit("unknown edit " + edit)
    return json.dumps(m).encode()


def main(argv):
    command = argv[1]
    if command == "copy-signatures":
        source, target = read_entry(argv[2]), read_entry(argv[3])
        header = json.loads(target["json"])
        header["signatures"] = json.loads(source["json"]).get("signatures", [])
        target["json"] = json.dumps(header).encode()
        write_entry(argv[3], target)
    elif command == "swap-payload":
        entry, other = read_entry(argv[2]), read_entry(argv[3])
        header, theirs = json.loads(entry["json"]), json.loads(other["json"])
        header["size"], header["checksum"] = theirs["size"], theirs["checksum"]
        entry["json"] = json.dumps(header).encode()
        entry["payload"] = other["payload"]
        write_entry(argv[2], entry)
    elif command == "deep-json":
        entry = read_entry(argv[2])
        depth = int(argv[3])
        entry["json"] = b'{"key":' + b"[" * depth + b"]" * depth + b"}"
        write_entry(argv[2], entry)
    elif command == "set-header":
        entry = read_entry(argv[2])
        header = json.loads(entry["json"])
        header[argv[3]] = json.loads(argv[4])
        entry["json"] = json.dumps(header).encode()
        write_entry(argv[2], entry)
    elif command == "manifest":
        manifest, code = read_artifact(open(argv[2], "rb").read())
        open(argv[3], "wb").write(
            write_artifact(edit_manifest(manifest, argv[4]), code))
    elif command == "buffer-record":
        manifest = json.loads(read_artifact(open(argv[2], "rb").read())[0])
        words = [len(manifest["inputs"]), len(manifest["outputs"])]
        words += [b["bytes"] for b in manifest["inputs"] + manifest["outputs"]]
        print("  .section .rodata\n  .globl kiln_buffers\n"
              "  .type kiln_buffers,@object\nkiln_buffers:")
        for word in words:
            print("  .quad %d" % word)
    elif command == "pack":
        manifest, _ = read_artifact(open(argv[2], "rb").read())
        code = open(argv[3], "rb").read()
        open(argv[4], "wb").write(write_artifact(manifest, code))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
