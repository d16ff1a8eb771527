#!/usr/bin/env python3
"""Invariance of the signature and key on real graphs.

For every corpus file this writes rewritten copies that hold the same
computation but share no name with the original:

* every instruction, computation and signature parameter is renamed
  consistently (definitions, operands, to_apply=/calls=/condition=/body=/
  branch_computations= references, ENTRY), keeping the dump's form (`%name`
  or bare names) and using names with '.', '-' and '_';
* metadata is dropped on some instructions, changed on others (op_name,
  op_type, source_file, source_line), added on some that had none;
* the FileNames / FunctionNames / FileLocations / StackFrames tables are
  renumbered and changed consistently (new paths, function names, every
  source line shifted; stack_frame_id references follow) in copy A, and
  deleted with every stack_frame_id in copy B;
* the module is renamed (or gets a name where it had none);
* the computations are reordered: ENTRY first, then the others reversed;
* in copy B, the attributes of every instruction are written in reverse
  order.

Instructions keep their order inside each computation (the signature walks
ops in the importer's order, which follows the dump's). Then `kiln hash`
must give each copy the signature AND the key of its original, and
`kiln diff ORIGINAL COPY` must say `same computation`.

With --comments, the copies are instead the originals without the
/*index=N*/ comments that XLA prints inside long lists.

Prints `invariance: N files, M identical`; exits 1 listing every difference.
"""

import argparse
import hashlib
import os
import random
import re
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hlotext  # noqa: E402

COMMENT_OR_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|/\*.*?\*/', re.S)
METADATA_FIELD = re.compile(r'([A-Za-z_]+)=("(?:[^"\\]|\\.)*"|[^ }]+)')
STYLES = ('{w}.{h}', '{w}-{h}.{n}', '{h}_{w}', '{w}{n}.{h}-{m}', 'x.{h}.{n}',
          '{w}__{h}')
WORDS = ('t', 'fused', 'op-x', 'v_1', 'q.q', 'node', 'k-k', 'tmp')


class Namer(object):
    """Fresh names that look shuffled: no relation to the old name's order
    or spelling, all different from every old name."""

    def __init__(self, rng, taken):
        self.rng = rng
        self.used = set(taken)

    def fresh(self, old):
        while True:
            digest = hashlib.sha1(
                ('%s/%d' % (old, self.rng.getrandbits(32))).encode()
            ).hexdigest()
            name = self.rng.choice(STYLES).format(
                w=self.rng.choice(WORDS), h=digest[:self.rng.randint(3, 8)],
                n=self.rng.randint(0, 999), m=self.rng.randint(0, 9))
            if not name[0].isalpha():
                name = 'n' + name
            if name not in self.used and not hlotext.INT_RE.match(name):
                self.used.add(name)
                return name


def all_names(mod):
    names = set()
    for comp in mod.computations:
        names.add(comp.name)
        names.update(t.bare() for t in comp.params)
        names.update(i.name for i in comp.instrs)
    return names


def rename_token(tok, new):
    return (tok.start, tok.end, ('%' + new) if tok.kind == 'pname' else new)


class Rewriter(object):
    def __init__(self, mod, rng, keep_tables):
        self.mod = mod
        self.rng = rng
        self.keep_tables = keep_tables
        self.namer = Namer(rng, all_names(mod))
        self.comp_names = {c.name: self.namer.fresh(c.name)
                           for c in mod.computations}
        self.frame_map = {}
        self.stats = {'renamed': 0, 'metadata dropped': 0,
                      'metadata changed': 0, 'metadata added': 0}

    # -- tables ------------------------------------------------------------

    def _perm(self, ids):
        shuffled = list(ids)
        self.rng.shuffle(shuffled)
        # New ids: shuffled, shifted, never 0 (0 means "no frame").
        return {old: 7 + 3 * i for i, old in enumerate(shuffled)}

    def tables(self):
        mod = self.mod
        rows = {}
        for name, first, last in mod.tables:
            rows[name] = [mod.lines[i] for i in range(first + 1, last + 1)]

        def ids(name):
            return [int(r.split(None, 1)[0]) for r in rows.get(name, [])]
        maps = {name: self._perm(ids(name)) for name in hlotext.TABLES}
        self.frame_map = maps['StackFrames']
        if not self.keep_tables:
            return ''

        def field(record, key, mapping=None, shift=0):
            def sub(m):
                value = int(m.group(2))
                if mapping is not None:
                    value = mapping.get(value, value)
                return '%s=%d' % (m.group(1), value + shift)
            return re.sub(r'\b(%s)=(-?[0-9]+)' % key, sub, record)

        out = []
        for name in hlotext.TABLES:
            if name not in rows:
                continue
            new_rows = []
            for row in rows[name]:
                old_id, rest = row.strip().split(None, 1)
                new_id = maps[name][int(old_id)]
                if name == 'FileNames':
                    path = rest[1:-1]
                    rest = '"/relocated/%s%s"' % (
                        hashlib.sha1(path.encode()).hexdigest()[:6], path)
                elif name == 'FunctionNames':
                    rest = '"%s_moved"' % rest[1:-1]
                elif name == 'FileLocations':
                    rest = field(rest, 'file_name_id', maps['FileNames'])
                    rest = field(rest, 'function_name_id',
                                 maps['FunctionNames'])
                    rest = field(rest, 'line', shift=17)
                    rest = field(rest, 'end_line', shift=17)
                    rest = field(rest, 'column', shift=2)
                else:
                    rest = field(rest, 'file_location_id',
                                 maps['FileLocations'])
                    rest = field(rest, 'parent_frame_id', self.frame_map)
                new_rows.append((new_id, '%d %s' % (new_id, rest)))
            new_rows.sort(reverse=True)
            out.append(name + '\n' + '\n'.join(r for _, r in new_rows) + '\n')
        return '\n'.join(out)

    # -- metadata ----------------------------------------------------------

    def metadata(self, value):
        """New text for a metadata value, or None to drop it."""
        if self.rng.random() < 0.3:
            self.stats['metadata dropped'] += 1
            return None
        fields = METADATA_FIELD.findall(value)
        out = []
        for key, val in fields:
            if key == 'stack_frame_id':
                if not self.keep_tables:
                    continue
                val = str(self.frame_map.get(int(val), int(val)))
            elif key == 'op_name':
                val = '"renamed/%s/%s"' % (
                    hashlib.sha1(val.encode()).hexdigest()[:5],
                    val[1:-1].split('/')[-1])
            elif key == 'op_type':
                val = '"other_%s"' % val[1:-1]
            elif key == 'source_file':
                val = '"/moved/elsewhere/%s"' % val[1:-1].split('/')[-1]
            elif key in ('source_line', 'source_end_line'):
                val = str(int(val) + 31)
            out.append('%s=%s' % (key, val))
        self.stats['metadata changed'] += 1
        if not any(k in ('source_file', 'source_line') for k, _ in fields):
            out.append('source_file="/added/by/test.py" source_line=%d' %
                       self.rng.randint(1, 9999))
        return '{' + ' '.join(out) + '}'

    # -- computations ------------------------------------------------------

    def computation(self, comp):
        mod = self.mod
        names = {}
        for inst in comp.instrs:
            names[inst.name] = self.namer.fresh(inst.name)
        for tok in comp.params:
            if tok.bare() not in names:
                names[tok.bare()] = self.namer.fresh(tok.bare())
        self.stats['renamed'] += len(names) + 1

        # Header line.
        edits = [rename_token(comp.name_tok, self.comp_names[comp.name])]
        for tok in comp.params:
            edits.append(rename_token(tok, names[tok.bare()]))
        header = hlotext.apply_edits(
            mod.lines[comp.header_line],
            [(s - mod.line_start[comp.header_line],
              e - mod.line_start[comp.header_line], r) for s, e, r in edits])
        if comp is mod.entry and not comp.is_entry:
            header = 'ENTRY ' + header
        out = [header]

        for inst in comp.instrs:
            edits = [rename_token(inst.name_tok, names[inst.name])]
            for op in inst.operands:
                if op.name not in names:
                    raise ValueError('%s: operand %s of %s is undefined' %
                                     (comp.name, op.name, inst.name))
                edits.append(rename_token(op.tok, names[op.name]))
            has_metadata = False
            for a in inst.attrs:
                v, e = a.val_toks
                if a.key in hlotext.COMPUTATION_ATTRS:
                    for t in inst.toks[v:e]:
                        if t.is_name():
                            edits.append(rename_token(
                                t, self.comp_names[t.bare()]))
                elif a.key in hlotext.INSTRUCTION_ATTRS:
                    for t in inst.toks[v:e]:
                        if t.is_name():
                            edits.append(rename_token(t, names[t.bare()]))
                elif a.key == 'metadata':
                    has_metadata = True
                    new = self.metadata(mod.slice(a.val_start, a.val_end))
                    if new is None:
                        edits.append((a.comma, a.val_end, ''))
                    else:
                        edits.append((a.val_start, a.val_end, new))
            line = self.assemble(inst, edits)
            if not has_metadata and self.rng.random() < 0.2:
                self.stats['metadata added'] += 1
                line += ', metadata={op_name="added/%s" source_file=' \
                        '"/added.py" source_line=%d}' % (
                            names[inst.name], self.rng.randint(1, 500))
            out.append(line)
        out.append('}')
        return '\n'.join(out) + '\n'

    def assemble(self, inst, edits):
        """The instruction's line with `edits` applied; in copy B its
        attributes are also written in reverse order."""
        text = self.mod.text

        def apply(start, end):
            return hlotext.apply_edits(text[start:end], [
                (s - start, e - start, r) for s, e, r in edits
                if start <= s and e <= end])
        if not inst.attrs:
            return apply(inst.start, inst.end)
        first, last = inst.attrs[0], inst.attrs[-1]
        parts = [apply(a.comma, a.val_end) for a in inst.attrs]
        if not self.keep_tables:
            parts.reverse()
        return (apply(inst.start, first.comma) + ''.join(parts) +
                text[last.val_end:inst.end])

    def rewrite(self):
        mod = self.mod
        parts = []
        new_module = 'renamed_%s.%d' % (
            hashlib.sha1(mod.text.encode()).hexdigest()[:7],
            self.rng.randint(1, 9999))
        if mod.header_line is not None:
            line = mod.lines[mod.header_line]
            s = mod.name_tok.start - mod.line_start[mod.header_line]
            e = mod.name_tok.end - mod.line_start[mod.header_line]
            parts.append(line[:s] + new_module + line[e:] + '\n')
        else:
            parts.append('HloModule %s\n' % new_module)
        tables = self.tables()
        entry = mod.entry
        others = [c for c in mod.computations if c is not entry]
        for comp in [entry] + others[::-1]:
            parts.append(self.computation(comp))
        # The tables go after the computations: they are referenced, not
        # positional.
        if tables:
            parts.append(tables)
        return '\n'.join(parts)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--kiln', required=True)
    ap.add_argument('--corpus', required=True)
    ap.add_argument('--inputs', help='directory with cleaned copies')
    ap.add_argument('--out', required=True, help='work directory')
    ap.add_argument('--seed', type=int, default=20240611)
    ap.add_argument('-j', '--jobs', type=int, default=2)
    ap.add_argument('--comments', action='store_true',
                    help='instead: copies without the /*index=N*/ comments '
                    'that XLA prints inside long lists, nothing else changed')
    ap.add_argument('-v', '--verbose', action='store_true')
    args = ap.parse_args()

    os.makedirs(args.out, exist_ok=True)
    files = hlotext.corpus_files(args.corpus, args.inputs, args.out)
    originals = []
    copies = []   # (rel, original path, copy path)
    problems = []
    for index, (rel, path) in enumerate(files):
        originals.append(path)
        with open(path) as f:
            text = f.read()
        if args.comments:
            out = os.path.join(args.out, '%s.C.hlo' % (
                rel.replace('/', '__')[:-4]))
            with open(out, 'w') as f:
                f.write(COMMENT_OR_STRING.sub(
                    lambda m: '' if m.group().startswith('/') else m.group(),
                    text))
            copies.append((rel, path, out))
            continue
        mod = hlotext.Module(text)
        for variant, keep_tables in (('A', True), ('B', False)):
            rng = random.Random('%d/%s/%s' % (args.seed, rel, variant))
            rw = Rewriter(mod, rng, keep_tables)
            new_text = rw.rewrite()
            out = os.path.join(args.out, '%s.%s.hlo' % (
                rel.replace('/', '__')[:-4], variant))
            with open(out, 'w') as f:
                f.write(new_text)
            # The copy must really share no name with the original, and
            # still have every instruction.
            copy = hlotext.Module(new_text)
            shared = all_names(mod) & all_names(copy)
            if shared:
                problems.append('%s (%s): names not renamed: %s' % (
                    rel, variant, ', '.join(sorted(shared)[:5])))
            count = sum(len(c.instrs) for c in mod.computations)
            if count != sum(len(c.instrs) for c in copy.computations):
                problems.append('%s (%s): instruction count changed' %
                                (rel, variant))
            if args.verbose:
                print('%s %s: %s' % (rel, variant, ', '.join(
                    '%s %d' % kv for kv in sorted(rw.stats.items()))))
            copies.append((rel, path, out))

    hashes, err, _ = hlotext.kiln_hash(
        args.kiln, originals + [c for _, _, c in copies], args.jobs)
    identical = {}
    for rel, orig, copy in copies:
        ok = True
        if orig not in hashes:
            problems.append('%s: the original does not import' % rel)
            ok = False
        elif copy not in hashes:
            problems.append('%s: the copy %s does not import' % (rel, copy))
            ok = False
        else:
            (s1, k1), (s2, k2) = hashes[orig], hashes[copy]
            if s1 != s2:
                problems.append('%s: signature %s != %s for copy %s' %
                                (rel, s1, s2, copy))
                ok = False
            if k1 != k2:
                problems.append('%s: key %s != %s for copy %s' %
                                (rel, k1, k2, copy))
                ok = False
        p = subprocess.run([args.kiln, 'diff', orig, copy],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True)
        if p.returncode != 0 or p.stdout.strip() != 'same computation':
            problems.append('%s: kiln diff %s %s (exit %d):\n%s%s' % (
                rel, orig, copy, p.returncode, p.stdout, p.stderr))
            ok = False
        identical[rel] = identical.get(rel, True) and ok
    if problems:
        sys.stderr.write(err)
    for line in problems:
        print('FAIL: ' + line)
    print('%d rewritten copies' % len(copies))
    print('invariance: %d files, %d identical' % (
        len(files), sum(identical.values())))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
