"""Truncation and garbage fuzzing of `kiln import` on real HLO dumps.

    truncate.py --kiln PATH --tmp DIR [--cuts N] [--mutations N] FILE_OR_DIR...

For every input file (directories are searched for *.hlo), this writes
variants into DIR and imports them with `kiln import --summary`, many files
per process (kiln goes on after a failed file and reports each one):

* cuts: the first K bytes, at N offsets (evenly spaced, plus a random set
  from a fixed seed, plus the empty file, the whole file, and the offsets
  just before and just after the closing brace of some computations);
* mutations: N copies with one byte replaced by a random byte, or a run of
  1 to 8 random bytes inserted, at random positions (fixed seed).

Rules, checked for every variant:

* kiln never crashes (no signal, no "PLEASE submit a bug report", no stack
  dump) and each process finishes within --timeout seconds;
* a variant that fails is reported as `<path>:<line>:<col>: error: ...` and
  counted FAILED; one that imports is counted ok and has no error line
  (an error message on a graph that imports is a violation);
* a cut must fail, unless the bytes kept end with a whole computation: its
  closing `}` (alone on its line, as every dump writes it) followed by
  nothing but whitespace. Such a prefix is a complete module (without an
  ENTRY mark, the last computation is the entry) and may import, or fail
  when it calls a computation that was cut away. The error of a failing cut
  must be on a line that exists in it (or the line after its end);
* a mutation may import or fail.

Prints one line per violation, then a summary line, and exits 1 if there was
any violation. Everything is deterministic for a given input.
"""

import argparse
import os
import random
import re
import shutil
import subprocess
import sys

SEED = "kiln-truncate-v1"
CRASH_MARKERS = (b"PLEASE submit a bug report", b"Stack dump:")
COMPUTATION_END = re.compile(rb"^\}[ \t\r]*$", re.M)


def find_inputs(paths, ext=".hlo"):
    files = []
    for path in paths:
        if os.path.isdir(path):
            for root, _, names in os.walk(path):
                files += [os.path.join(root, n) for n in names if n.endswith(ext)]
        else:
            files.append(path)
    return sorted(files)


def computation_ends(data):
    """Offsets just after each `}` that closes a computation."""
    return [m.start() + 1 for m in COMPUTATION_END.finditer(data)]


def make_cases(name, data, cuts, mutations, mlir=False):
    """Returns [(tag, bytes, may_succeed, is_cut)]."""
    size = len(data)
    rng = random.Random("%s:%s" % (SEED, name))
    ends = computation_ends(data)
    end_set = set(ends)

    offsets = {0, size, max(size - 1, 0), min(1, size)}
    even = max(cuts // 2, 1)
    offsets.update(size * i // even for i in range(1, even))
    offsets.update(rng.randrange(size + 1) for _ in range(cuts - even))
    # Around a few computation ends: just before the `}` (must fail), just
    # after it, and after the newline that follows (may import).
    for end in rng.sample(ends, min(4, len(ends))) + ends[-1:]:
        offsets.update({end - 1, end, min(end + 1, size)})

    cases = []
    for k in sorted(offsets):
        kept = data[:k]
        stripped = len(kept.rstrip(b" \t\r\n"))
        if mlir:
            # MLIR text may end with comment lines (`// -----`).
            text = kept
            while True:
                text = text.rstrip(b" \t\r\n")
                last = text.rfind(b"\n") + 1
                if not text[last:].lstrip().startswith(b"//"):
                    break
                text = text[:last]
            stripped = len(text)
        may_succeed = stripped in end_set
        cases.append(("cut%d" % k, kept, may_succeed, True))
    for i in range(mutations):
        pos = rng.randrange(size + 1)
        if i % 2 == 0 and pos < size:
            byte = rng.randrange(256)
            mutated = data[:pos] + bytes([byte]) + data[pos + 1:]
            tag = "flip%d_%02x" % (pos, byte)
        else:
            junk = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
            mutated = data[:pos] + junk + data[pos:]
            tag = "ins%d_%s" % (pos, junk.hex())
        cases.append((tag, mutated, True, False))
    return cases


def run_kiln(kiln, paths, timeout):
    """Runs kiln import --summary; returns (returncode, stdout, stderr)."""
    try:
        proc = subprocess.run([kiln, "import", "--summary"] + paths,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=timeout)
        return proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as e:
        return None, e.stdout or b"", e.stderr or b""


def crashed(returncode, stdout, stderr):
    if returncode is None:
        return "timed out"
    if returncode < 0 or returncode > 2:
        return "exit code %d" % returncode
    for marker in CRASH_MARKERS:
        if marker in stderr or marker in stdout:
            return "printed %r" % marker.decode()
    return None


def check_batch(kiln, batch, timeout, report):
    """batch: [(path, source, tag, data, may_succeed, is_cut)]."""
    paths = [entry[0] for entry in batch]
    returncode, stdout, stderr = run_kiln(kiln, paths, timeout)
    problem = crashed(returncode, stdout, stderr)
    if problem:
        if len(batch) == 1:
            path, source, tag = batch[0][:3]
            report(source, tag, problem)
            return
        # Find the variants responsible, one process each.
        for entry in batch:
            check_batch(kiln, [entry], timeout, report)
        return

    status = {}
    for line in stdout.splitlines():
        m = re.match(rb"^(ok|FAILED)\s+(\S.*?)(: |$)", line)
        if m:
            status[m.group(2).decode("utf-8", "replace")] = m.group(1).decode()
    errors = {}
    for line in stderr.splitlines():
        m = re.match(rb"^(.*?):(\d+):(\d+): error: ", line)
        if m:
            path = m.group(1).decode("utf-8", "replace")
            errors.setdefault(path, []).append(int(m.group(2)))
    failed = sum(1 for s in status.values() if s == "FAILED")
    if (returncode == 2) != (failed > 0):
        report(batch[0][1], "batch", "exit code %d with %d FAILED" % (returncode, failed))

    for path, source, tag, data, may_succeed, is_cut in batch:
        state = status.get(path)
        lines = errors.get(path, [])
        if state is None:
            report(source, tag, "no summary line")
        elif state == "ok":
            if lines:
                report(source, tag, "imported, yet printed an error at line %d" % lines[0])
            elif not may_succeed:
                report(source, tag, "a cut in the middle of the module imported")
        else:
            if not lines:
                report(source, tag, "failed without a `%s:LINE:COL: error:` line" % path)
            elif is_cut and lines[0] > data.count(b"\n") + 1:
                report(source, tag, "error at line %d, past the end (%d lines)"
                       % (lines[0], data.count(b"\n") + 1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kiln", required=True)
    parser.add_argument("--tmp", required=True)
    parser.add_argument("--cuts", type=int, default=50)
    parser.add_argument("--mutations", type=int, default=30)
    parser.add_argument("--batch", type=int, default=40)
    parser.add_argument("--timeout", type=float, default=20)
    parser.add_argument("--ext", default=".hlo",
                        help="the inputs' extension in directories (.hlo, "
                             "or .mlir for StableHLO, whose module's closing "
                             "brace is the only `}` at the start of a line)")
    parser.add_argument("inputs", nargs="+")
    args = parser.parse_args()

    inputs = find_inputs(args.inputs, args.ext)
    if not inputs:
        sys.exit("truncate.py: no input files")
    shutil.rmtree(args.tmp, ignore_errors=True)
    os.makedirs(args.tmp)

    violations = []

    def report(source, tag, what):
        violations.append("%s [%s]: %s" % (source, tag, what))
        print("VIOLATION %s [%s]: %s" % (source, tag, what), flush=True)

    total = 0
    for source in inputs:
        with open(source, "rb") as f:
            data = f.read()
        base = os.path.basename(source)
        cases = make_cases(base, data, args.cuts, args.mutations,
                           mlir=source.endswith(".mlir"))
        total += len(cases)
        workdir = os.path.join(args.tmp, base)
        os.makedirs(workdir)
        entries = []
        for tag, variant, may_succeed, is_cut in cases:
            stem, ext = os.path.splitext(base)
            path = os.path.join(workdir, "%s.%s%s" % (stem, tag, ext))
            with open(path, "wb") as f:
                f.write(variant)
            entries.append((path, source, tag, variant, may_succeed, is_cut))
        for i in range(0, len(entries), args.batch):
            check_batch(args.kiln, entries[i:i + args.batch], args.timeout, report)
        shutil.rmtree(workdir)

    print("truncate.py: %d inputs, %d cases, %d violations"
          % (len(inputs), total, len(violations)))
    sys.exit(1 if violations else 0)


if __name__ == "__main__":
    main()
