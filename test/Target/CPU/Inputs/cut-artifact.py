"""Writes damaged copies of a segmented graph's artifact (several objects
after the manifest), for graph-segmentation.test:

    cut-artifact.py ARTIFACT OUTDIR

prints the manifest's object_count and each object's length, then writes
OUTDIR/last-object-dropped.kart (the last whole object cut off at its
boundary), OUTDIR/entry-twice.kart (the entry's object again after it),
OUTDIR/extra.kart (bytes after the objects),
OUTDIR/count-zero.kart and OUTDIR/count-huge.kart (object_count 0 and
100000, the lengths kept right).
"""
import json
import os
import sys

MAGIC = b"KILN-ARTIFACT 1\n"
data = open(sys.argv[1], "rb").read()
out = sys.argv[2]
assert data.startswith(MAGIC)
rest = data[len(MAGIC):]
length, rest = rest.split(b"\n", 1)
manifest = json.loads(rest[:int(length)])
rest = rest[int(length):]
objects = []
while rest:
    length, rest = rest.split(b"\n", 1)
    objects.append(rest[:int(length)])
    rest = rest[int(length):]
print("object_count", manifest.get("object_count", 1), "objects",
      len(objects))


def write(name, manifest, objects, tail=b""):
    text = json.dumps(manifest).encode()
    body = MAGIC + str(len(text)).encode() + b"\n" + text
    for obj in objects:
        body += str(len(obj)).encode() + b"\n" + obj
    open(os.path.join(out, name), "wb").write(body + tail)


write("last-object-dropped.kart", manifest, objects[:-1])
# The entry's object again, as a segment's.
twice = dict(manifest)
twice["object_count"] = len(objects) + 1
write("entry-twice.kart", twice, objects[:1] + objects)
write("extra.kart", manifest, objects, b"12\nmore objects")
for name, count in (("count-zero.kart", 0), ("count-huge.kart", 100000)):
    changed = dict(manifest)
    changed["object_count"] = count
    write(name, changed, objects)
