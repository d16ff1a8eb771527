"""A small structural reader of XLA HLO text, for the signature tests.

It does not interpret HLO: it finds, on each line of a dump, where the
instruction's name, shape, opcode, operands and attributes are, so that the
tests can rewrite names and metadata (invariance) or make one semantic change
(sensitivity) by editing the text at exact character positions. Positions are
absolute offsets into the file's text.

Standard library only.
"""

import json
import os
import re
import subprocess
import sys
import tempfile

_TOKEN = re.compile(
    r'(?P<ws>\s+)'
    r'|(?P<comment>/\*.*?\*/)'
    r'|(?P<string>"(?:[^"\\]|\\.)*")'
    r'|(?P<arrow>->)'
    r'|(?P<le><=)'
    r'|(?P<pname>%[A-Za-z0-9_.\-+$]+)'
    r'|(?P<word>[A-Za-z0-9_.\-+$]+)'
    r'|(?P<punct>.)', re.S)

OPEN = {'(': ')', '[': ']', '{': '}'}
CLOSE = {')', ']', '}'}
TABLES = ('FileNames', 'FunctionNames', 'FileLocations', 'StackFrames')
# Attributes whose value names computations / instructions.
COMPUTATION_ATTRS = ('to_apply', 'calls', 'condition', 'body',
                     'true_computation', 'false_computation',
                     'branch_computations', 'called_computations')
INSTRUCTION_ATTRS = ('control-predecessors',)

INT_RE = re.compile(r'-?[0-9]+$')
SHAPE_RE = re.compile(r'\b([a-z][a-z0-9]*)\[([0-9,]*)\]')


class Tok(object):
    __slots__ = ('kind', 'text', 'start', 'end')

    def __init__(self, kind, text, start, end):
        self.kind, self.text, self.start, self.end = kind, text, start, end

    def is_name(self):
        return self.kind in ('word', 'pname')

    def bare(self):
        return self.text[1:] if self.kind == 'pname' else self.text

    def name_start(self):
        """Offset of the name without its '%'."""
        return self.start + 1 if self.kind == 'pname' else self.start

    def __repr__(self):
        return 'Tok(%s,%r,%d)' % (self.kind, self.text, self.start)


def tokenize(text, base=0):
    """Tokens of `text` (comments and blanks dropped), offsets + base."""
    toks = []
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        if kind == 'ws' or kind == 'comment':
            continue
        toks.append(Tok(kind, m.group(), m.start() + base, m.end() + base))
    return toks


def match_brackets(toks):
    """Index of the matching bracket for every bracket token."""
    match = {}
    stack = []
    for i, t in enumerate(toks):
        if t.kind != 'punct':
            continue
        if t.text in OPEN:
            stack.append(i)
        elif t.text in CLOSE:
            if not stack:
                raise ValueError('unbalanced %r at %d' % (t.text, t.start))
            j = stack.pop()
            if OPEN[toks[j].text] != t.text:
                raise ValueError('mismatched %r at %d' % (t.text, t.start))
            match[i] = j
            match[j] = i
    if stack:
        raise ValueError('unclosed bracket at %d' % toks[stack[-1]].start)
    return match


def _is(tok, text):
    return tok is not None and tok.kind == 'punct' and tok.text == text


class Attr(object):
    """`, key=value` of an instruction: comma, key and value positions."""
    __slots__ = ('key', 'comma', 'key_start', 'val_start', 'val_end',
                 'val_toks')

    def __repr__(self):
        return 'Attr(%s)' % self.key


class Operand(object):
    """One operand: its name token, optional shape span, segment span."""
    __slots__ = ('name', 'tok', 'shape_span', 'seg_start', 'seg_end',
                 'tuple_index')


class Instr(object):
    def __init__(self):
        self.root = False
        self.name = None
        self.name_tok = None
        self.shape_start = self.shape_end = None
        self.opcode = None
        self.opcode_tok = None
        self.operands = []
        self.lparen = self.rparen = None   # offsets of '(' and ')'
        self.literal = None                # (start, end) for constants
        self.param_number = None
        self.param_tok = None
        self.attrs = []
        self.line = None                   # line index
        self.start = self.end = None       # offsets of the line's text
        self.toks = None

    def attr(self, key):
        for a in self.attrs:
            if a.key == key:
                return a
        return None

    def __repr__(self):
        return 'Instr(%s = %s)' % (self.name, self.opcode)


class Computation(object):
    def __init__(self):
        self.name = None
        self.name_tok = None
        self.is_entry = False
        self.entry_tok = None
        self.header_line = None
        self.close_line = None
        self.params = []        # (name token) of the signature's parameters
        self.param_shapes = []  # (start, end) of each parameter's shape
        self.sig = None         # (start, end) of `(...) -> shape`, or None
        self.result_shape = None
        self.instrs = []
        self.by_name = {}

    def __repr__(self):
        return 'Computation(%s)' % self.name


class Module(object):
    """A parsed dump: `text`, `lines`, `line_start`, header, tables and
    computations. Every line of the file belongs to exactly one of: the
    header, a table (header or row), a computation (header, instruction or
    closing brace), or `other` (blank lines and // comments)."""

    def __init__(self, text):
        self.text = text
        self.lines = text.split('\n')
        self.line_start = []
        pos = 0
        for line in self.lines:
            self.line_start.append(pos)
            pos += len(line) + 1
        self.header_line = None
        self.name_tok = None
        self.header_toks = None
        self.tables = []      # (name, first line, last line inclusive)
        self.computations = []
        self.by_name = {}
        self.long_form = False
        self._parse()

    # -- parsing -----------------------------------------------------------

    def _parse(self):
        lines = self.lines
        i = 0
        n = len(lines)
        while i < n:
            line = lines[i]
            stripped = line.strip()
            if not stripped or stripped.startswith('//'):
                i += 1
                continue
            if stripped.startswith('HloModule'):
                self.header_line = i
                self.header_toks = tokenize(line, self.line_start[i])
                self.name_tok = self.header_toks[1]
                i += 1
                continue
            if stripped in TABLES:
                j = i + 1
                while j < n and re.match(r'\s*[0-9]', lines[j]):
                    j += 1
                self.tables.append((stripped, i, j - 1))
                i = j
                continue
            if not line[0].isspace() and stripped.endswith('{'):
                comp = self._parse_header(i)
                j = i + 1
                while j < n and lines[j].strip() != '}':
                    s = lines[j].strip()
                    if s and not s.startswith('//'):
                        inst = self._parse_instr(j, comp)
                        comp.by_name[inst.name] = len(comp.instrs)
                        comp.instrs.append(inst)
                    j += 1
                if j == n:
                    raise ValueError('computation %s not closed' % comp.name)
                comp.close_line = j
                self.by_name[comp.name] = len(self.computations)
                self.computations.append(comp)
                i = j + 1
                continue
            raise ValueError('line %d: cannot classify %r' % (i + 1, line[:80]))
        if not any(c.is_entry for c in self.computations):
            self.entry = self.computations[-1]
        else:
            self.entry = [c for c in self.computations if c.is_entry][0]

    def _parse_header(self, i):
        toks = tokenize(self.lines[i], self.line_start[i])
        # The last token opens the body.
        match = match_brackets(toks[:-1])
        comp = Computation()
        comp.header_line = i
        k = 0
        if toks[0].text == 'ENTRY':
            comp.is_entry = True
            comp.entry_tok = toks[0]
            k = 1
        comp.name_tok = toks[k]
        comp.name = toks[k].bare()
        if toks[k].kind == 'pname':
            self.long_form = True
        k += 1
        if _is(toks[k], '('):
            close = match[k]
            comp.sig = (toks[k].start, None)
            # Parameters: `name: shape` at depth one.
            j = k + 1
            while j < close:
                if toks[j].is_name() and _is(toks[j + 1], ':'):
                    comp.params.append(toks[j])
                    s = j + 2
                    e = skip_shape(toks, s, match)
                    comp.param_shapes.append((toks[s].start, toks[e - 1].end))
                    j = e
                    continue
                j += 1
            assert toks[close + 1].kind == 'arrow', self.lines[i]
            s = close + 2
            e = skip_shape(toks, s, match)
            comp.result_shape = (toks[s].start, toks[e - 1].end)
            comp.sig = (comp.sig[0], toks[e - 1].end)
            k = e
        assert _is(toks[k], '{') and k == len(toks) - 1, self.lines[i]
        return comp

    def _parse_instr(self, i, comp):
        line = self.lines[i]
        base = self.line_start[i]
        toks = tokenize(line, base)
        match = match_brackets(toks)
        inst = Instr()
        inst.line = i
        inst.start = base
        inst.end = base + len(line)
        inst.toks = toks
        k = 0
        if toks[0].kind == 'word' and toks[0].text == 'ROOT':
            inst.root = True
            k = 1
        inst.name_tok = toks[k]
        inst.name = toks[k].bare()
        if not _is(toks[k + 1], '='):
            raise ValueError('line %d: no "=" after the name' % (i + 1))
        k += 2
        e = skip_shape(toks, k, match)
        inst.shape_start, inst.shape_end = toks[k].start, toks[e - 1].end
        k = e
        inst.opcode_tok = toks[k]
        inst.opcode = toks[k].text
        k += 1
        assert _is(toks[k], '('), line
        close = match[k]
        inst.lparen, inst.rparen = toks[k].start, toks[close].start
        if inst.opcode == 'parameter':
            inst.param_tok = toks[k + 1]
            inst.param_number = int(toks[k + 1].text)
        elif inst.opcode == 'constant':
            inst.literal = (toks[k].end, toks[close].start)
        elif close > k + 1:
            j = k + 1
            while j < close:
                seg = j
                op = Operand()
                op.shape_span = None
                t = toks[j]
                if _is(t, '(') or (t.kind == 'word' and _is(toks[j + 1], '[')
                                   and toks[j + 1].start == t.end):
                    e = skip_shape(toks, j, match)
                    op.shape_span = (toks[j].start, toks[e - 1].end)
                    j = e
                op.tok = toks[j]
                op.name = toks[j].bare()
                op.tuple_index = None
                j += 1
                if _is(toks[j], '#'):
                    op.tuple_index = int(toks[j + 1].text)
                    j += 2
                op.seg_start = toks[seg].start
                op.seg_end = toks[j - 1].end
                inst.operands.append(op)
                if _is(toks[j], ','):
                    j += 1
                elif j != close:
                    raise ValueError('line %d: bad operand list' % (i + 1))
        k = close + 1
        while k < len(toks):
            if not _is(toks[k], ','):
                raise ValueError('line %d: expected "," at %r' %
                                 (i + 1, toks[k].text))
            a = Attr()
            a.comma = toks[k].start
            a.key = toks[k + 1].text
            a.key_start = toks[k + 1].start
            assert _is(toks[k + 2], '='), line
            v = k + 3
            e = skip_value(toks, v, match)
            a.val_start, a.val_end = toks[v].start, toks[e - 1].end
            a.val_toks = (v, e)
            inst.attrs.append(a)
            k = e
        return inst

    # -- queries -----------------------------------------------------------

    def slice(self, start, end):
        return self.text[start:end]

    def instr_text(self, inst):
        return self.text[inst.start:inst.end]

    def callees(self, inst):
        """Names of the computations an instruction refers to."""
        out = []
        for a in inst.attrs:
            if a.key in COMPUTATION_ATTRS:
                v, e = a.val_toks
                for t in inst.toks[v:e]:
                    if t.is_name():
                        out.append(t.bare())
        return out

    def reachable(self):
        """Computations reachable from the entry (a set of names)."""
        seen = set()
        todo = [self.entry.name]
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            comp = self.computations[self.by_name[name]]
            for inst in comp.instrs:
                todo.extend(self.callees(inst))
        return seen

    def region_computations(self):
        """Computations used as regions (reducers, loop bodies, branches)
        rather than as called functions."""
        out = set()
        for comp in self.computations:
            for inst in comp.instrs:
                for a in inst.attrs:
                    if a.key in COMPUTATION_ATTRS and not (
                            inst.opcode == 'call' and a.key == 'to_apply'):
                        v, e = a.val_toks
                        for t in inst.toks[v:e]:
                            if t.is_name():
                                out.add(t.bare())
        return out


def skip_shape(toks, i, match):
    """Index after the shape starting at toks[i]."""
    if _is(toks[i], '('):
        return match[i] + 1
    if toks[i].kind != 'word':
        raise ValueError('expected a shape at %r' % toks[i].text)
    i += 1
    if not _is(toks[i], '['):
        raise ValueError('expected "[" after element type')
    i = match[i] + 1
    if i + 1 < len(toks) and _is(toks[i], '{') and i in match:
        nxt = toks[i + 1]
        if _is(nxt, '}') or _is(nxt, ':') or (nxt.kind == 'word' and
                                               INT_RE.match(nxt.text)):
            i = match[i] + 1
    return i


def skip_value(toks, i, match):
    """Index after the attribute value starting at toks[i]."""
    def primary(i):
        t = toks[i]
        if t.kind == 'punct' and t.text in OPEN:
            return match[i] + 1
        if t.kind in ('word', 'pname', 'string'):
            return i + 1
        raise ValueError('bad attribute value at %r' % t.text)
    i = primary(i)
    while i < len(toks):
        if toks[i].kind == 'le':
            i = primary(i + 1)
            continue
        if (toks[i].kind == 'word' and toks[i].text == 'T' and
                i + 1 < len(toks) and _is(toks[i + 1], '(') and
                toks[i + 1].start == toks[i].end):
            i = match[i + 1] + 1
            continue
        break
    return i


def apply_edits(text, edits):
    """Applies non-overlapping (start, end, replacement) edits."""
    out = []
    pos = 0
    for start, end, rep in sorted(edits, key=lambda e: (e[0], e[1])):
        if start < pos:
            raise ValueError('overlapping edits at %d' % start)
        out.append(text[pos:start])
        out.append(rep)
        pos = end
    out.append(text[pos:])
    return ''.join(out)


def parse_shape(text):
    """[(dtype, [dims])] of the leaves of a shape's text."""
    return [(m.group(1), [int(d) for d in m.group(2).split(',') if d])
            for m in SHAPE_RE.finditer(text)]


# -- corpus and tool -------------------------------------------------------

def corpus_files(corpus, inputs=None, workdir=None):
    """(display name, path) of every .hlo file under `corpus`. A dump that
    still carries the JavaScript wrapper it was published in (a line that
    starts with a backquote) is replaced by the cleaned copy in `inputs` if
    there is one, else cut before the wrapper into `workdir`."""
    out = []
    for root, _, names in os.walk(corpus):
        for name in sorted(names):
            if not name.endswith('.hlo'):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, corpus)
            with open(path) as f:
                text = f.read()
            lines = text.split('\n')
            cut = [i for i, l in enumerate(lines) if l.startswith('`')]
            if cut:
                clean = inputs and os.path.join(inputs, name)
                if clean and os.path.exists(clean):
                    path = clean
                else:
                    if workdir is None:
                        workdir = tempfile.mkdtemp()
                    path = os.path.join(workdir, 'clean-' + name)
                    with open(path, 'w') as f:
                        f.write('\n'.join(lines[:cut[0]]) + '\n')
            out.append((rel, path))
    return sorted(out)


def kiln_hash(kiln, paths, jobs=2, extra=()):
    """Runs `kiln hash --json` on paths; returns ({path: (sig, key)} for the
    graphs that imported, stderr text, exit code)."""
    result = {}
    err = []
    rc = 0
    # Chunks keep command lines short.
    for i in range(0, len(paths), 400):
        chunk = paths[i:i + 400]
        p = subprocess.run([kiln, 'hash', '--json', '-j', str(jobs)] +
                           list(extra) + chunk,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True)
        rc = max(rc, p.returncode)
        err.append(p.stderr)
        try:
            doc = json.loads(p.stdout)
        except ValueError:
            sys.stderr.write('kiln hash printed no JSON (exit %d):\n%s\n' %
                             (p.returncode, p.stderr[-2000:]))
            raise
        for g in doc['graphs']:
            if g.get('ok'):
                result[g['path']] = (g['signature'], g['key'])
    return result, ''.join(err), rc
