"""Prints what kiln precompile's report and trace say, one line per graph
(sorted), for FileCheck: name, status, files, whether the worker and peak
memory are known, attempts; then the totals and the trace's tracks."""
import json
import sys

report = json.load(open(sys.argv[1]))
lines = []
for graph in report["graphs"]:
    lines.append("%s %s files=%d worker=%s peak=%s attempts=%d" % (
        graph["name"], graph["status"], len(graph["files"]),
        "yes" if "worker" in graph else "no",
        "yes" if graph.get("peak_memory_bytes", 0) > 0 else "no",
        graph["attempts"]) + (
        " threads=%d" % graph["threads"] if "threads" in graph else ""))
for line in sorted(lines, key=lambda l: (l.split()[0], -int(l.split()[2][6:]))):
    print(line)
totals = report["totals"]
print("totals graphs=%d compiled=%d failed=%d cache_hits=%d" % (
    totals["graphs"], totals["compiled"], totals["failed"],
    totals["cache_hits"]))
if len(sys.argv) > 2:
    trace = json.load(open(sys.argv[2]))["traceEvents"]
    tracks = sorted(e["args"]["name"] for e in trace
                    if e["ph"] == "M" and e["name"] == "thread_name")
    compiles = [e for e in trace if e["ph"] == "X" and e["cat"] == "compile"]
    assert all(e["dur"] >= 0 and e["ts"] >= 0 for e in compiles)
    print("trace tracks=%s compiles=%d" % (",".join(tracks), len(compiles)))
