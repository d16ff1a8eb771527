#!/usr/bin/env python3
"""Sensitivity of the signature and key on real graphs.

For every corpus file this generates, with a fixed seed, hundreds of single
semantic mutations: each one changes the computation in one place (a
dimension size, changed consistently through the whole file, counts as one
place). Every mutation is written to a file and hashed with `kiln hash`; a
mutation that no longer imports (the verifier rejects it) counts as invalid
and is skipped, but every mutation that imports must get a signature and a
key different from the original's.

Only live code is mutated: instructions that the ROOT of a computation
needs, in computations that live instructions call, from the entry. A
change in dead code does not change what is compiled (and get-tuple-element
and tuple, which import as no op, leave no trace when dead). Layouts that
valid HLO derives from another instruction's (a tuple element's, a call's
callee ROOT's, a region parameter's operand's) are not mutated on their own.

Kinds of mutations (a kind that a file cannot have is reported as n/a):
  dim       one distinct dimension size, everywhere it occurs in a shape
            (and in dynamic_slice_sizes / slice_sizes / topk's k)
  etype     one element type: a convert, a constant, an iota or an entry
            parameter whose users are converts (through broadcasts,
            reshapes, ... which follow it), in the whole chain
  const     one element of one constant literal
  cmp       one comparison direction
  dot       one dot contracting dimension (to another of the same size), or
            the operands of a dot with equal operand shapes swapped
  swap      the operands of a non-commutative op swapped (subtract, divide,
            power, remainder, compare, shifts, select's branches,
            concatenate)
  rg        one replica group: an id moved to another group, groups split
            or merged, an iota list transposed
  shard     one sharding: a tile assignment changed, replicated <-> tiled
  reducer   the op of one reduction computation (add -> multiply, ...)
  cc        a custom call's target, backend_config, api_version or side
            effect flag
  opcode    one elementwise op replaced by another of the same arity
  gte       a get-tuple-element index, to another element of the same shape
  slice     one slice window moved by one element
  param     two parameters of the same shape exchange their numbers
  operand   one operand rewired to another value of the same shape
  layout    one instruction's layout (minor-to-major order or tiling)
  attr      one other attribute: iota/sort/reduce/transpose/broadcast
            dimensions, channel ids, flags, padding, precision bits,
            frontend attributes

Prints a table per file and per kind: generated / imported / distinct (and
invalid); requires for each file at least --min-imported imported mutations
and at least one imported mutation of each kind the file can have. Exits 1
on any collision (a mutation that imports with the original's signature or
key); the colliding inputs are kept under OUT/collisions/.
"""

import argparse
import bisect
import collections
import os
import random
import re
import shutil
import struct
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hlotext  # noqa: E402
from hlotext import parse_shape, INT_RE  # noqa: E402

KINDS = ('dim', 'etype', 'const', 'cmp', 'dot', 'swap', 'rg', 'shard',
         'reducer', 'cc', 'opcode', 'gte', 'slice', 'param', 'operand',
         'layout', 'attr')

FLOATS = ('f16', 'bf16', 'f32', 'f64')
SIGNED = {'s2': 2, 's4': 4, 's8': 8, 's16': 16, 's32': 32, 's64': 64}
UNSIGNED = {'u2': 2, 'u4': 4, 'u8': 8, 'u16': 16, 'u32': 32, 'u64': 64}
OTHER_TYPES = {
    'f32': ('bf16', 'f16', 'f64'), 'bf16': ('f32', 'f16'),
    'f16': ('f32', 'bf16'), 'f64': ('f32',),
    's32': ('s64', 'u32', 's16'), 's64': ('s32',), 's16': ('s32',),
    's8': ('s16', 'u8'), 'u32': ('s32', 'u64'), 'u64': ('u32',),
    'u8': ('u16', 's8'), 'u16': ('u8',), 'u4': ('u8', 's4', 'u2'),
    's4': ('s8', 'u4'), 'pred': ('s8', 'u8'),
}
DIRECTIONS = ('EQ', 'NE', 'LT', 'LE', 'GT', 'GE')
NONCOMMUTATIVE = ('subtract', 'divide', 'power', 'remainder', 'compare',
                  'atan2', 'shift-left', 'shift-right-logical',
                  'shift-right-arithmetic')
BINARY_FLOAT = ('add', 'subtract', 'multiply', 'divide', 'maximum', 'minimum',
                'power')
BINARY_INT = ('add', 'subtract', 'multiply', 'divide', 'maximum', 'minimum',
              'remainder', 'and', 'or', 'xor')
BINARY_PRED = ('and', 'or', 'xor')
UNARY_FLOAT = ('exponential', 'log', 'sqrt', 'rsqrt', 'negate', 'abs', 'sine',
               'cosine', 'tanh', 'logistic', 'floor', 'ceil',
               'exponential-minus-one', 'log-plus-one')
UNARY_INT = ('negate', 'abs', 'not')
REDUCERS = {'f': ('add', 'multiply', 'maximum', 'minimum'),
            'i': ('add', 'multiply', 'maximum', 'minimum', 'and', 'or'),
            'p': ('and', 'or', 'xor')}
REDUCING_OPS = ('reduce', 'all-reduce', 'reduce-scatter', 'reduce-window',
                'scatter', 'select-and-scatter')
# Ops whose result has the element type of their only typed operand: an
# element type change flows through them.
TYPE_FOLLOWERS = ('broadcast', 'reshape', 'transpose', 'copy', 'slice',
                  'reverse', 'negate', 'abs', 'bitcast')
STRING_RE = re.compile(r'"(?:[^"\\]|\\.)*"')
INT_LIST_RE = re.compile(r'-?[0-9]+')


class Mutation(object):
    __slots__ = ('kind', 'desc', 'make')

    def __init__(self, kind, desc, make):
        self.kind, self.desc, self.make = kind, desc, make


def int_list(text):
    return [int(x) for x in INT_LIST_RE.findall(text)]


def fmt_list(values):
    return '{' + ','.join(str(v) for v in values) + '}'


def element_class(dtype):
    if dtype == 'pred':
        return 'p'
    if dtype in FLOATS or dtype.startswith('f') or dtype.startswith('bf'):
        return 'f'
    return 'i'


def strip_comments(text):
    return re.sub(r'/\*.*?\*/', '', text)


def tuple_elements(text):
    """Texts of the top-level elements of a tuple shape `(a, b, ...)`."""
    text = strip_comments(text).strip()
    assert text[0] == '('
    out, depth, cur = [], 0, []
    for ch in text[1:-1]:
        if ch in '([{':
            depth += 1
        elif ch in ')]}':
            depth -= 1
        if ch == ',' and depth == 0:
            out.append(''.join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if ''.join(cur).strip():
        out.append(''.join(cur).strip())
    return out


# -- exact values of literals ------------------------------------------------

def float_bits(dtype, value):
    """Bits of `value` rounded to `dtype` (round to nearest even)."""
    if dtype == 'f64':
        return struct.unpack('>Q', struct.pack('>d', value))[0]
    if dtype == 'f16':
        try:
            return struct.unpack('>H', struct.pack('>e', value))[0]
        except OverflowError:
            return 0x7c00 if value > 0 else 0xfc00
    try:
        bits = struct.unpack('>I', struct.pack('>f', value))[0]
    except OverflowError:
        bits = 0x7f800000 if value > 0 else 0xff800000
    if dtype == 'f32':
        return bits
    if value != value:
        return 0x7fc0
    return (bits + 0x7fff + ((bits >> 16) & 1)) >> 16


def float_text(value):
    if value != value:
        return 'nan'
    if value in (float('inf'), float('-inf')):
        return 'inf' if value > 0 else '-inf'
    text = repr(value)
    return text[:-2] if text.endswith('.0') else text


def new_literals(dtype, word):
    """Other values for one literal element, each certainly different in
    `dtype`."""
    out = []
    if dtype == 'pred':
        if word in ('true', '1'):
            return ['false']
        if word in ('false', '0'):
            return ['true']
        return []
    if dtype in FLOATS:
        try:
            v = float(word)
        except ValueError:
            return []
        if v != v:
            cands = [0.0, 1.0, float('inf')]
        elif v in (float('inf'), float('-inf')):
            cands = [-v, 0.0, 1.0 if v > 0 else -1.0]
        elif v == 0:
            cands = [1.0, -1.0, 0.5, 2.0]
        else:
            cands = [-v, 2 * v, v / 2, 0.0]
        old = float_bits(dtype, v)
        for c in cands:
            if float_bits(dtype, c) != old:
                out.append(float_text(c))
        return out
    bits = SIGNED.get(dtype) or UNSIGNED.get(dtype)
    if not bits or not INT_RE.match(word):
        return []
    v = int(word)
    if dtype in SIGNED:
        lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    else:
        lo, hi = 0, (1 << bits) - 1
    for c in (v + 1, v - 1, -v, 0, 2 * v + 3):
        if c != v and lo <= c <= hi and str(c) not in out:
            out.append(str(c))
    return out


def dim_values(d, count):
    """`count` other sizes for a dimension of size `d`."""
    out = []
    for c in [d + 1, 2 * d, d - 1, d // 2 if d % 2 == 0 else d + 2, 3 * d] + \
            list(range(d + 2, d + 2 + 4 * count)):
        if c >= 1 and c != d and c not in out:
            out.append(c)
        if len(out) == count:
            break
    return out


# -- the graph around each instruction ----------------------------------------

class File(object):
    """A parsed dump with the facts that the generators need."""

    def __init__(self, text):
        self.text = text
        self.mod = hlotext.Module(text)
        self.live = {}      # computation name -> names of live instructions
        todo = [self.mod.entry.name]
        while todo:
            name = todo.pop()
            if name in self.live:
                continue
            comp = self.mod.computations[self.mod.by_name[name]]
            live = self.live[name] = self.live_instructions(comp)
            for inst in comp.instrs:
                if inst.name in live:
                    todo.extend(self.mod.callees(inst))
        self.comps = [c for c in self.mod.computations if c.name in self.live]
        self.strings = [(m.start(), m.end())
                        for m in STRING_RE.finditer(text)]
        self.string_starts = [s for s, _ in self.strings]
        self.users = {}     # (comp, name) -> [(inst, operand index)]
        for comp in self.mod.computations:
            for inst in comp.instrs:
                for k, op in enumerate(inst.operands):
                    self.users.setdefault((comp.name, op.name), []).append(
                        (inst, k))
        # Reducer computations and how each computation is used.
        self.reducers = set()
        self.regions = self.mod.region_computations()
        for comp, inst in self.instrs(*REDUCING_OPS):
            if True:
                if inst.opcode in REDUCING_OPS:
                    a = inst.attr('to_apply')
                    if a:
                        self.reducers.add(self.val(a).lstrip('%'))

    def live_instructions(self, comp):
        """What the ROOT needs (and side effects need): a change anywhere
        else does not change what the computation computes. The entry's
        parameters are its interface, and always live."""
        roots = [i for i in comp.instrs if i.root] or comp.instrs[-1:]
        roots += [i for i in comp.instrs
                  if self.text[i.start:i.end].find(
                      'custom_call_has_side_effect=true') >= 0]
        if comp is self.mod.entry:
            roots += [i for i in comp.instrs if i.opcode == 'parameter']
        live = set()
        todo = list(roots)
        while todo:
            inst = todo.pop()
            if inst.name in live:
                continue
            live.add(inst.name)
            for op in inst.operands:
                todo.append(comp.instrs[comp.by_name[op.name]])
        return live

    def in_string(self, pos):
        i = bisect.bisect_right(self.string_starts, pos) - 1
        return i >= 0 and self.strings[i][0] <= pos < self.strings[i][1]

    def val(self, attr):
        return self.text[attr.val_start:attr.val_end]

    def shape_text(self, inst):
        return self.text[inst.shape_start:inst.shape_end]

    def is_tuple(self, inst):
        return self.text[inst.shape_start] == '('

    def leaves(self, inst):
        return parse_shape(self.shape_text(inst))

    def producer(self, comp, op):
        return comp.instrs[comp.by_name[op.name]]

    def operand_leaves(self, comp, op):
        """(dtype, dims) of an operand, or None for a tuple or element."""
        prod = self.producer(comp, op)
        if op.tuple_index is not None or self.is_tuple(prod):
            return None
        leaves = self.leaves(prod)
        return leaves[0] if len(leaves) == 1 else None

    def earlier(self, comp, name, inst):
        return comp.by_name[name] < comp.by_name[inst.name]

    def definition(self, inst):
        """An instruction's text without its name and metadata."""
        text = self.text[inst.shape_start:inst.end]
        a = inst.attr('metadata')
        if a:
            text = text.replace(self.text[a.comma:a.val_end], '')
        return text

    def instrs(self, *opcodes):
        """The live instructions (with these opcodes)."""
        for comp in self.comps:
            live = self.live[comp.name]
            for inst in comp.instrs:
                if inst.name in live and (not opcodes or
                                          inst.opcode in opcodes):
                    yield comp, inst


def edit(start, end, text):
    return lambda: [(start, end, text)]


# -- generators ------------------------------------------------------------------

def gen_dim(f, rng, variants):
    text = f.text
    sites = collections.defaultdict(list)   # size -> [(start, end)]
    used = set()
    for comp, inst in f.instrs():
        for _, dims in f.leaves(inst):
            used.update(dims)
    for m in hlotext.SHAPE_RE.finditer(text):
        if f.in_string(m.start()):
            continue
        pos = m.start(2)
        for part in m.group(2).split(','):
            if part:
                sites[int(part)].append((pos, pos + len(part)))
            pos += len(part) + 1
    # Attributes that restate sizes.
    for comp in f.mod.computations:
        for inst in comp.instrs:
            for a in inst.attrs:
                if a.key in ('dynamic_slice_sizes', 'slice_sizes', 'k'):
                    for m in INT_LIST_RE.finditer(f.val(a)):
                        sites[int(m.group())].append(
                            (a.val_start + m.start(), a.val_start + m.end()))
                if a.key == 'slice':
                    # Limits: a slice to the end of a dimension.
                    for m in re.finditer(r':([0-9]+)', f.val(a)):
                        sites[int(m.group(1))].append(
                            (a.val_start + m.start(1),
                             a.val_start + m.end(1)))
    for d in sorted(used):
        where = sites[d]
        for new in dim_values(d, variants):
            yield Mutation('dim', 'dimension %d -> %d (%d places)' % (
                d, new, len(where)),
                (lambda where=where, new=new:
                 [(s, e, str(new)) for s, e in where]))


def gen_etype(f, rng, variants):
    text = f.text
    for comp in f.comps:
        for root in comp.instrs:
            if root.name not in f.live[comp.name]:
                continue
            op = root.opcode
            if op == 'parameter':
                if comp is not f.mod.entry:
                    continue
            elif op not in ('convert', 'constant', 'iota'):
                continue
            if f.is_tuple(root) or len(f.leaves(root)) != 1:
                continue
            dtype = f.leaves(root)[0][0]
            if dtype not in OTHER_TYPES:
                continue
            # The chain: root and the type followers that it feeds, up to
            # converts.
            chain, ok, todo = [root], True, [root]
            ends = []     # (consumer, operand) whose operand shape follows
            while todo and ok:
                cur = todo.pop()
                if cur.root and (comp.sig is not None or
                                 comp is not f.mod.entry):
                    ok = False
                    break
                for user, k in f.users.get((comp.name, cur.name), []):
                    ends.append((user, k))
                    if user.opcode == 'convert':
                        continue
                    if (user.opcode in TYPE_FOLLOWERS and
                            len(user.operands) == 1 and
                            not f.is_tuple(user)):
                        if user not in chain:
                            chain.append(user)
                            todo.append(user)
                        continue
                    ok = False
                    break
            if not ok:
                continue
            for new in OTHER_TYPES[dtype][:variants]:
                if op == 'constant' and element_class(new) != \
                        element_class(dtype):
                    continue

                def make(chain=chain, ends=ends, new=new, root=root,
                         comp=comp):
                    edits = []
                    for inst in chain:
                        m = re.match(r'\s*([a-z][a-z0-9]*)\[',
                                     f.shape_text(inst))
                        s = inst.shape_start + m.start(1)
                        edits.append((s, s + len(m.group(1)), new))
                    for user, k in ends:
                        sp = user.operands[k].shape_span
                        if sp:
                            m = re.match(r'([a-z][a-z0-9]*)\[',
                                         text[sp[0]:sp[1]])
                            edits.append((sp[0], sp[0] + len(m.group(1)),
                                          new))
                    if root.opcode == 'parameter' and comp.sig is not None:
                        s, e = comp.param_shapes[root.param_number]
                        m = re.match(r'([a-z][a-z0-9]*)\[', text[s:e])
                        edits.append((s, s + len(m.group(1)), new))
                    return edits
                yield Mutation('etype', '%s %s: %s -> %s (%d ops)' % (
                    op, root.name, dtype, new, len(chain)), make)


def gen_const(f, rng, variants):
    for comp, inst in f.instrs('constant'):
        lit = f.text[inst.literal[0]:inst.literal[1]]
        if '...' in lit or f.is_tuple(inst):
            continue
        dtype = f.leaves(inst)[0][0]
        words = [m for m in re.finditer(r'[^\s{},()]+', lit)]
        if not words:
            continue
        m = rng.choice(words)
        for new in new_literals(dtype, m.group())[:variants]:
            s = inst.literal[0] + m.start()
            yield Mutation('const', '%s %s: %s -> %s' % (
                dtype, inst.name, m.group(), new),
                edit(s, s + len(m.group()), new))


def gen_cmp(f, rng, variants):
    for comp, inst in f.instrs('compare'):
        a = inst.attr('direction')
        if not a:
            continue
        for d in DIRECTIONS:
            if d != f.val(a):
                yield Mutation('cmp', '%s: direction %s -> %s' % (
                    inst.name, f.val(a), d), edit(a.val_start, a.val_end, d))


def swap_segments(f, inst, i, j):
    """Edits that exchange operands i and j (with their shapes, if any)."""
    a, b = inst.operands[i], inst.operands[j]

    def make():
        return [(a.seg_start, a.seg_end, f.text[b.seg_start:b.seg_end]),
                (b.seg_start, b.seg_end, f.text[a.seg_start:a.seg_end])]
    return make


def gen_dot(f, rng, variants):
    for comp, inst in f.instrs('dot'):
        if len(inst.operands) != 2:
            continue
        shapes = [f.operand_leaves(comp, op) for op in inst.operands]
        if None in shapes:
            continue
        for side, (_, dims) in zip(('lhs', 'rhs'), shapes):
            ca = inst.attr(side + '_contracting_dims')
            ba = inst.attr(side + '_batch_dims')
            if not ca:
                continue
            contracting = int_list(f.val(ca))
            batch = int_list(f.val(ba)) if ba else []
            for k, c in enumerate(contracting):
                for e in range(len(dims)):
                    if (e not in contracting and e not in batch and
                            dims[e] == dims[c]):
                        new = list(contracting)
                        new[k] = e
                        yield Mutation('dot', '%s: %s_contracting_dims %s '
                                       '-> %s' % (inst.name, side, f.val(ca),
                                                  fmt_list(new)),
                                       edit(ca.val_start, ca.val_end,
                                            fmt_list(new)))
        a, b = inst.operands
        if (shapes[0] == shapes[1] and a.name != b.name and
                f.earlier(comp, a.name, inst) and
                f.earlier(comp, b.name, inst)):
            yield Mutation('dot', '%s: operands swapped' % inst.name,
                           swap_segments(f, inst, 0, 1))


def gen_swap(f, rng, variants):
    for comp, inst in f.instrs():
        ops = inst.operands
        pairs = []
        if inst.opcode in NONCOMMUTATIVE and len(ops) == 2:
            pairs = [(0, 1)]
        elif inst.opcode == 'select' and len(ops) == 3:
            pairs = [(1, 2)]
        elif inst.opcode == 'concatenate' and len(ops) >= 2:
            pairs = [(i, j) for i in range(len(ops))
                     for j in range(i + 1, len(ops))]
            rng.shuffle(pairs)
            pairs = pairs[:variants]
        for i, j in pairs:
            a, b = ops[i], ops[j]
            if a.name == b.name or a.tuple_index is not None or \
                    b.tuple_index is not None:
                continue
            if not (f.earlier(comp, a.name, inst) and
                    f.earlier(comp, b.name, inst)):
                continue
            la, lb = f.operand_leaves(comp, a), f.operand_leaves(comp, b)
            if la is None or (inst.opcode != 'concatenate' and la != lb):
                continue
            if f.definition(f.producer(comp, a)) == \
                    f.definition(f.producer(comp, b)):
                continue   # two copies of one value
            yield Mutation('swap', '%s %s: operands %d and %d swapped' % (
                inst.opcode, inst.name, i, j), swap_segments(f, inst, i, j))


def expand_iota(text):
    """Groups of an iota replica list `[R,C]<=[dims]T(perm)`."""
    m = re.match(r'\[([0-9,]+)\]<=\[([0-9,]+)\](?:T\(([0-9,]+)\))?$', text)
    if not m:
        return None
    shape = int_list(m.group(1))
    dims = int_list(m.group(2))
    perm = int_list(m.group(3)) if m.group(3) else list(range(len(dims)))
    n = 1
    for d in dims:
        n *= d
    # ids laid out in `dims`, transposed by perm, flattened.
    strides = [1] * len(dims)
    for i in range(len(dims) - 2, -1, -1):
        strides[i] = strides[i + 1] * dims[i + 1]
    tdims = [dims[p] for p in perm]
    ids = []
    for flat in range(n):
        idx, rem = [], flat
        for d in reversed(tdims):
            idx.append(rem % d)
            rem //= d
        idx.reverse()
        ids.append(sum(idx[k] * strides[perm[k]] for k in range(len(perm))))
    if len(shape) != 2 or shape[0] * shape[1] != n:
        return None
    return [ids[r * shape[1]:(r + 1) * shape[1]] for r in range(shape[0])]


def explicit_groups(groups):
    return '{' + ','.join(fmt_list(g) for g in groups) + '}'


def gen_rg(f, rng, variants):
    for comp, inst in f.instrs():
        a = inst.attr('replica_groups')
        if not a:
            continue
        value = f.val(a)
        if value.startswith('['):
            groups = expand_iota(value)
            if groups is None:
                continue
        else:
            groups = [int_list(g) for g in re.findall(r'\{([0-9,\s]*)\}',
                                                      value[1:-1])]
            groups = [g for g in groups if g]
        if not groups:
            continue
        out = []
        if len(groups) >= 2 and len(groups[0]) >= 2:
            # Move an id to another group (and that group's id back).
            for _ in range(variants):
                g1, g2 = rng.sample(range(len(groups)), 2)
                i1 = rng.randrange(len(groups[g1]))
                i2 = rng.randrange(len(groups[g2]))
                new = [list(g) for g in groups]
                new[g1][i1], new[g2][i2] = new[g2][i2], new[g1][i1]
                out.append(('ids %d and %d exchanged between groups' % (
                    groups[g1][i1], groups[g2][i2]), explicit_groups(new)))
        if len(groups) >= 2 and len(groups[0]) == 1 and len(groups) % 2 == 0:
            merged = [groups[i] + groups[i + 1]
                      for i in range(0, len(groups), 2)]
            out.append(('singleton groups paired', explicit_groups(merged)))
        if len(groups) >= 2 and len(groups[0]) % 2 == 0:
            h = len(groups[0]) // 2
            split = [g[:h] for g in groups] + [g[h:] for g in groups]
            out.append(('groups split in halves', explicit_groups(split)))
        if len(groups) == 1 and len(groups[0]) >= 2:
            g = groups[0]
            if len(g) % 2 == 0:
                out.append(('the group split in two', explicit_groups(
                    [g[:len(g) // 2], g[len(g) // 2:]])))
            if inst.opcode != 'all-reduce':
                # Rank order matters to gathers and scatters.
                out.append(('the group reordered', explicit_groups(
                    [g[1:] + g[:1]])))
        m = re.match(r'\[([0-9]+),([0-9]+)\]<=\[([0-9]+)\]$', value)
        if m and int(m.group(1)) > 1 and int(m.group(2)) > 1:
            out.append(('iota list transposed', '[%s,%s]<=[%s,%s]T(1,0)' % (
                m.group(1), m.group(2), m.group(2), m.group(1))))
        for desc, new in out:
            yield Mutation('rg', '%s %s: %s' % (inst.opcode, inst.name, desc),
                           edit(a.val_start, a.val_end, new))


def sharding_variants(element):
    """Other shardings for one `{...}` sharding element."""
    body = element[1:-1]
    out = []
    if body == 'replicated':
        return ['{maximal device=0}', '{devices=[2]<=[2]}']
    if body.startswith('maximal'):
        return ['{replicated}', '{maximal device=1}']
    m = re.match(r'devices=\[([0-9,]+)\](.*)$', body)
    if not m:
        return ['{replicated}']
    tile = int_list(m.group(1))
    rest = m.group(2)
    last = len(tile) - (1 if 'last_tile_dim_replicate' in rest else 0)
    for i in range(last):
        for j in range(i + 1, last):
            if tile[i] != tile[j]:
                new = list(tile)
                new[i], new[j] = new[j], new[i]
                out.append('{devices=[%s]%s}' % (
                    ','.join(map(str, new)), rest))
                break
        if len(out) >= 2:
            break
    # The device order.
    e = re.match(r'<=\[([0-9]+)\](.*)$', rest)
    if e and int(e.group(1)) % 2 == 0 and int(e.group(1)) > 2:
        n = int(e.group(1))
        out.append('{devices=[%s]<=[2,%d]T(1,0)%s}' % (
            m.group(1), n // 2, e.group(2)))
    e = re.match(r'([0-9]+(?:,[0-9]+)+)(.*)$', rest)
    if e:
        ids = e.group(1).split(',')
        out.append('{devices=[%s]%s%s}' % (m.group(1), ','.join(ids[::-1]),
                                           e.group(2)))
    out.append('{replicated}')
    return out


def gen_shard(f, rng, variants):
    for comp, inst in f.instrs():
        a = inst.attr('sharding')
        if not a:
            continue
        value = f.val(a)
        # Elements: innermost braces.
        elements = [(m.start(), m.end()) for m in
                    re.finditer(r'\{[^{}]*\}', value)]
        if len(elements) > 1:
            elements = [rng.choice(elements)]
        for s, e in elements:
            for new in sharding_variants(value[s:e])[:variants]:
                yield Mutation('shard', '%s %s: %s -> %s' % (
                    inst.opcode, inst.name, value[s:e], new),
                    edit(a.val_start + s, a.val_start + e, new))


def gen_reducer(f, rng, variants):
    for comp in f.comps:
        if comp.name not in f.reducers:
            continue
        root = [i for i in comp.instrs if i.root] or comp.instrs[-1:]
        root = root[0]
        leaves = f.leaves(root)
        if f.is_tuple(root) or len(root.operands) != 2:
            continue
        ops = REDUCERS[element_class(leaves[0][0])]
        if root.opcode not in ops:
            continue
        for new in ops:
            if new != root.opcode:
                t = root.opcode_tok
                yield Mutation('reducer', '%s: %s -> %s' % (
                    comp.name, root.opcode, new), edit(t.start, t.end, new))


def gen_cc(f, rng, variants):
    targets = sorted(set(f.val(i.attr('custom_call_target'))
                         for _, i in f.instrs('custom-call')
                         if i.attr('custom_call_target')))
    for comp, inst in f.instrs('custom-call'):
        a = inst.attr('custom_call_target')
        if a:
            old = f.val(a)
            news = ['"%s_v2"' % old[1:-1]] + [t for t in targets if t != old]
            for new in news[:variants]:
                yield Mutation('cc', '%s: target %s -> %s' % (
                    inst.name, old, new), edit(a.val_start, a.val_end, new))
        a = inst.attr('backend_config')
        if a:
            value = f.val(a)
            m = re.search(r'[0-9]+', value)
            if m:
                new = value[:m.start()] + str(int(m.group()) + 1) + \
                    value[m.end():]
            else:
                new = value[:-1] + 'x' + value[-1:]
            yield Mutation('cc', '%s: backend_config changed' % inst.name,
                           edit(a.val_start, a.val_end, new))
        a = inst.attr('api_version')
        if a:
            new = ('API_VERSION_STATUS_RETURNING'
                   if f.val(a) != 'API_VERSION_STATUS_RETURNING'
                   else 'API_VERSION_TYPED_FFI')
            yield Mutation('cc', '%s: api_version -> %s' % (inst.name, new),
                           edit(a.val_start, a.val_end, new))
        a = inst.attr('custom_call_has_side_effect')
        if a:
            new = 'false' if f.val(a) == 'true' else 'true'
            yield Mutation('cc', '%s: side effect -> %s' % (inst.name, new),
                           edit(a.val_start, a.val_end, new))


def gen_opcode(f, rng, variants):
    for comp, inst in f.instrs():
        leaves = f.leaves(inst)
        if f.is_tuple(inst) or len(leaves) != 1:
            continue
        in_cls = None
        if inst.operands:
            la = f.operand_leaves(comp, inst.operands[0])
            in_cls = la and element_class(la[0])
        cls = element_class(leaves[0][0])
        if len(inst.operands) == 2:
            table = {'f': BINARY_FLOAT, 'i': BINARY_INT,
                     'p': BINARY_PRED}[cls]
        elif len(inst.operands) == 1 and in_cls == cls:
            table = {'f': UNARY_FLOAT, 'i': UNARY_INT, 'p': ('not',)}[cls]
        else:
            continue
        if inst.opcode not in table:
            continue
        others = [o for o in table if o != inst.opcode]
        rng.shuffle(others)
        t = inst.opcode_tok
        for new in others[:variants]:
            yield Mutation('opcode', '%s: %s -> %s' % (
                inst.name, inst.opcode, new), edit(t.start, t.end, new))


def gen_gte(f, rng, variants):
    for comp, inst in f.instrs('get-tuple-element'):
        a = inst.attr('index')
        if not a or len(inst.operands) != 1:
            continue
        prod = f.producer(comp, inst.operands[0])
        if not f.is_tuple(prod):
            continue
        elements = [parse_shape(e) if not e.startswith('(') else e
                    for e in tuple_elements(f.shape_text(prod))]
        old = int(f.val(a))
        same = [j for j, e in enumerate(elements)
                if j != old and e == elements[old]]
        rng.shuffle(same)
        for j in same[:variants]:
            yield Mutation('gte', '%s: index %d -> %d' % (inst.name, old, j),
                           edit(a.val_start, a.val_end, str(j)))


def gen_slice(f, rng, variants):
    for comp, inst in f.instrs('slice'):
        a = inst.attr('slice')
        if not a or len(inst.operands) != 1:
            continue
        la = f.operand_leaves(comp, inst.operands[0])
        if la is None:
            continue
        dims = la[1]
        value = f.val(a)
        specs = list(re.finditer(r'\[(-?[0-9]+):(-?[0-9]+)(:[0-9]+)?\]',
                                 value))
        if len(specs) != len(dims):
            continue
        order = list(range(len(specs)))
        rng.shuffle(order)
        count = 0
        for k in order:
            m = specs[k]
            lo, hi = int(m.group(1)), int(m.group(2))
            stride = m.group(3) or ''
            if hi + 1 <= dims[k]:
                lo2, hi2 = lo + 1, hi + 1
            elif lo >= 1:
                lo2, hi2 = lo - 1, hi - 1
            else:
                continue
            new = '[%d:%d%s]' % (lo2, hi2, stride)
            yield Mutation('slice', '%s: %s -> %s' % (
                inst.name, m.group(), new),
                edit(a.val_start + m.start(), a.val_start + m.end(), new))
            count += 1
            if count >= variants:
                break


def gen_param(f, rng, variants):
    for comp in f.comps:
        if comp.name in f.reducers:
            continue   # reductions are commutative
        params = [i for i in comp.instrs if i.opcode == 'parameter']
        used = set(op.name for i in comp.instrs
                   if i.name in f.live[comp.name] for op in i.operands)
        by_shape = collections.defaultdict(list)
        for p in params:
            by_shape[strip_comments(f.shape_text(p))].append(p)
        pairs = []
        for group in by_shape.values():
            for i in range(len(group)):
                for j in range(i + 1, len(group)):
                    pairs.append((group[i], group[j]))
        rng.shuffle(pairs)
        # Two parameters that nothing uses are interchangeable.
        pairs = [(p, q) for p, q in pairs if p.name in used or q.name in used]
        for p, q in pairs[:variants]:
            def make(p=p, q=q):
                return [(p.param_tok.start, p.param_tok.end,
                         str(q.param_number)),
                        (q.param_tok.start, q.param_tok.end,
                         str(p.param_number))]
            yield Mutation('param', '%s: parameters %d (%s) and %d (%s) '
                           'exchanged' % (comp.name, p.param_number, p.name,
                                          q.param_number, q.name), make)


def gen_operand(f, rng, variants):
    for comp in f.comps:
        by_shape = collections.defaultdict(list)   # leaves -> [index]
        for idx, inst in enumerate(comp.instrs):
            if not f.is_tuple(inst):
                key = tuple((d, tuple(s)) for d, s in f.leaves(inst))
                by_shape[key].append(idx)
        for idx, inst in enumerate(comp.instrs):
            if inst.name not in f.live[comp.name]:
                continue
            if not inst.operands or inst.opcode == 'get-tuple-element':
                continue
            k = rng.randrange(len(inst.operands))
            op = inst.operands[k]
            if op.tuple_index is not None:
                continue
            prod = f.producer(comp, op)
            if f.is_tuple(prod):
                continue
            key = tuple((d, tuple(s)) for d, s in f.leaves(prod))
            cands = [c for c in by_shape[key] if c < idx and
                     comp.instrs[c].name != op.name and
                     f.definition(comp.instrs[c]) != f.definition(prod)]
            if not cands:
                continue
            rng.shuffle(cands)
            for c in cands[:variants]:
                other = comp.instrs[c]
                t = op.tok
                new = ('%' if t.kind == 'pname' else '') + other.name
                yield Mutation('operand', '%s: operand %d %s -> %s' % (
                    inst.name, k, op.name, other.name),
                    edit(t.start, t.end, new))


def gen_layout(f, rng, variants):
    for comp, inst in f.instrs():
        # Layouts that valid HLO derives from another instruction's: of a
        # tuple element, of a call's callee ROOT, of a region's operand.
        if f.is_tuple(inst) or inst.opcode in ('get-tuple-element', 'tuple',
                                               'call'):
            continue
        if inst.opcode == 'parameter' and comp.name in f.regions:
            continue
        shape = f.shape_text(inst)
        m = re.match(r'([a-z][a-z0-9]*)\[([0-9,]*)\](\{[^}]*\})?$', shape)
        if not m:
            continue
        rank = len([d for d in m.group(2).split(',') if d])
        if rank < 2 and not (m.group(3) and ':' in m.group(3)):
            continue
        start = inst.shape_start + m.end(2) + 1
        if m.group(3) is None:
            new = '{%s}' % ','.join(str(d) for d in range(rank))
            yield Mutation('layout', '%s: layout %s added' % (inst.name, new),
                           edit(start, start, new))
            continue
        layout = m.group(3)
        minor, _, tiles = layout[1:-1].partition(':')
        order = int_list(minor)
        news = []
        if len(order) >= 2:
            for _ in range(variants):
                i, j = rng.sample(range(len(order)), 2)
                o = list(order)
                o[i], o[j] = o[j], o[i]
                t = ','.join(map(str, o)) + (':' + tiles if tiles else '')
                if '{%s}' % t not in news:
                    news.append('{%s}' % t)
        if tiles:
            e = re.search(r'E\(([0-9]+)\)', tiles)
            if e:
                news.append(layout.replace(e.group(), 'E(%d)' % (
                    2 * int(e.group(1)))))
        for new in news[:variants]:
            yield Mutation('layout', '%s: layout %s -> %s' % (
                inst.name, layout, new),
                edit(start, start + len(layout), new))


def gen_attr(f, rng, variants):
    for comp, inst in f.instrs():
        out = []   # (description, start, end, new)
        leaves = f.leaves(inst)
        dims = leaves[0][1] if len(leaves) == 1 else None
        for a in inst.attrs:
            v = f.val(a)
            if a.key == 'iota_dimension' and dims:
                for d in range(len(dims)):
                    if str(d) != v:
                        out.append((a, str(d)))
            elif a.key == 'dimensions' and inst.opcode == 'sort' and dims:
                for d in range(len(dims)):
                    if fmt_list([d]) != v:
                        out.append((a, fmt_list([d])))
            elif a.key == 'dimensions' and inst.opcode == 'transpose' and \
                    inst.operands:
                la = f.operand_leaves(comp, inst.operands[0])
                perm = int_list(v)
                if la is None or len(perm) != len(la[1]):
                    continue
                for i in range(len(perm)):
                    for j in range(i + 1, len(perm)):
                        if la[1][perm[i]] == la[1][perm[j]]:
                            p = list(perm)
                            p[i], p[j] = p[j], p[i]
                            out.append((a, fmt_list(p)))
            elif a.key == 'dimensions' and inst.opcode == 'reduce' and \
                    inst.operands:
                la = f.operand_leaves(comp, inst.operands[0])
                red = int_list(v)
                if la is None:
                    continue
                for k, d in enumerate(red):
                    for e in range(len(la[1])):
                        if e not in red and la[1][e] == la[1][d]:
                            r = list(red)
                            r[k] = e
                            out.append((a, fmt_list(sorted(r))))
            elif a.key == 'dimensions' and inst.opcode == 'broadcast' and \
                    dims:
                bd = int_list(v)
                for k, d in enumerate(bd):
                    for e in range(len(dims)):
                        if e not in bd and dims[e] == dims[d]:
                            b = list(bd)
                            b[k] = e
                            if b == sorted(b):
                                out.append((a, fmt_list(b)))
            elif a.key == 'channel_id':
                out.append((a, str(int(v) + 1000)))
            elif a.key in ('is_stable', 'largest', 'indices_are_sorted',
                           'unique_indices', 'use_global_device_ids'):
                out.append((a, 'false' if v == 'true' else 'true'))
            elif a.key in ('exponent_bits', 'mantissa_bits'):
                out.append((a, str(int(v) + 1)))
                if int(v) > 1:
                    out.append((a, str(int(v) - 1)))
            elif a.key == 'epsilon':
                out.append((a, repr(float(v) * 16)))
            elif a.key == 'padding':
                parts = v.split('x')
                k = rng.randrange(len(parts))
                nums = parts[k].split('_')
                nums[0], nums[1] = str(int(nums[0]) + 1), str(int(nums[1]) - 1)
                parts[k] = '_'.join(nums)
                out.append((a, 'x'.join(parts)))
            elif a.key == 'algorithm':
                for alg in ('rng_default', 'rng_three_fry', 'rng_philox'):
                    if alg != v:
                        out.append((a, alg))
            elif a.key == 'frontend_attributes':
                m = re.search(r'="((?:[^"\\]|\\.)*)"', v)
                if m:
                    s = a.val_start + m.start(1)
                    out.append((('frontend', s), 'changed'))
        rng.shuffle(out)
        for a, new in out[:variants]:
            if isinstance(a, tuple):
                s = a[1]
                yield Mutation('attr', '%s: a frontend attribute changed' %
                               inst.name, edit(s, s, 'x_'))
                continue
            yield Mutation('attr', '%s %s: %s=%s -> %s' % (
                inst.opcode, inst.name, a.key, f.val(a), new),
                edit(a.val_start, a.val_end, new))


GENERATORS = {k: globals()['gen_' + k] for k in KINDS}


# -- driver --------------------------------------------------------------------------

def allocate(candidates, budget, rng):
    """Picks about `budget` mutations, spread over the kinds: each kind
    gets an equal share, and what a kind cannot use goes to the others."""
    pools = {k: list(v) for k, v in candidates.items() if v}
    for v in pools.values():
        rng.shuffle(v)
    chosen = {k: [] for k in pools}
    left = budget
    while left > 0 and any(pools.values()):
        live = [k for k in pools if pools[k]]
        share = max(1, left // len(live))
        for k in live:
            take = pools[k][:share]
            pools[k] = pools[k][share:]
            chosen[k].extend(take)
            left -= len(take)
            if left <= 0:
                break
    return chosen, pools


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--kiln', required=True)
    ap.add_argument('--corpus', required=True)
    ap.add_argument('--inputs', help='directory with cleaned copies')
    ap.add_argument('--out', required=True, help='work directory')
    ap.add_argument('--seed', type=int, default=7)
    ap.add_argument('--per-file', type=int, default=300,
                    help='mutations per file (default 300)')
    ap.add_argument('--variants', type=int, default=4,
                    help='variants per site (dimensions get 48x more)')
    ap.add_argument('--min-imported', type=int, default=100)
    ap.add_argument('-j', '--jobs', type=int, default=2)
    ap.add_argument('--only', help='only files whose name contains this')
    ap.add_argument('-v', '--verbose', action='store_true',
                    help='print every invalid mutation and why')
    args = ap.parse_args()

    began = time.time()
    os.makedirs(args.out, exist_ok=True)
    files = hlotext.corpus_files(args.corpus, args.inputs, args.out)
    if args.only:
        files = [(r, p) for r, p in files if args.only in r]
    failures = []
    totals = collections.defaultdict(lambda: [0, 0, 0, 0])
    grand = [0, 0, 0]
    for rel, path in files:
        with open(path) as fh:
            text = fh.read()
        f = File(text)
        rng = random.Random('%d/%s' % (args.seed, rel))
        candidates = {}
        for kind in KINDS:
            variants = args.variants * (48 if kind == 'dim' else 1)
            candidates[kind] = list(GENERATORS[kind](f, rng, variants))
        chosen, spare = allocate(candidates, args.per_file, rng)

        orig, err, rc = hlotext.kiln_hash(args.kiln, [path], 1)
        if path not in orig:
            failures.append('%s: the original does not import:\n%s' % (
                rel, err))
            continue
        osig, okey = orig[path]
        stats = {k: [0, 0, 0, 0] for k in KINDS}   # gen, imp, distinct, bad
        seen = {}       # signature -> description, among the mutations
        work = os.path.join(args.out, 'mut')
        # Rounds: the sample, then more of any kind that got nothing to
        # import, and more of everything while the file is short of
        # --min-imported.
        batch = [m for k in KINDS for m in chosen.get(k, [])]
        for round_ in range(4):
            if not batch:
                break
            shutil.rmtree(work, ignore_errors=True)
            os.makedirs(work)
            paths = []
            for n, m in enumerate(batch):
                p = os.path.join(work, '%s-%04d.hlo' % (m.kind, n))
                mutated = hlotext.apply_edits(text, m.make())
                if mutated == text:
                    failures.append('%s: %s mutation %s leaves the text as '
                                    'it is' % (rel, m.kind, m.desc))
                with open(p, 'w') as out:
                    out.write(mutated)
                paths.append(p)
            hashes, err, _ = hlotext.kiln_hash(args.kiln, paths, args.jobs)
            errors = {}
            if args.verbose:
                for line in err.splitlines():
                    if ': error: ' in line:
                        errors.setdefault(line.split(':')[0], line)
            for m, p in zip(batch, paths):
                st = stats[m.kind]
                st[0] += 1
                if p not in hashes:
                    st[3] += 1
                    if args.verbose:
                        print('  invalid %s: %s\n    %s' % (
                            m.kind, m.desc, errors.get(p, '?')))
                    continue
                st[1] += 1
                sig, key = hashes[p]
                if sig == osig or key == okey:
                    keep = os.path.join(args.out, 'collisions',
                                        rel.replace('/', '__') +
                                        '.%s.%d.hlo' % (m.kind, st[0]))
                    os.makedirs(os.path.dirname(keep), exist_ok=True)
                    shutil.copy(p, keep)
                    failures.append('%s: COLLISION %s: %s (same %s) -> %s' % (
                        rel, m.kind, m.desc,
                        'signature' if sig == osig else 'key', keep))
                    continue
                st[2] += 1
                if sig in seen and args.verbose:
                    print('  note: %s and %s give the same signature' % (
                        seen[sig], m.desc))
                seen.setdefault(sig, m.desc)
            shutil.rmtree(work, ignore_errors=True)
            imported = sum(s[1] for s in stats.values())
            batch = []
            for k in KINDS:
                if stats[k][0] and not stats[k][1] and spare.get(k):
                    batch += spare[k][:40]
                    spare[k] = spare[k][40:]
            if imported < args.min_imported:
                need = args.min_imported - imported
                pool = [m for k in KINDS for m in spare.get(k, [])]
                rng.shuffle(pool)
                extra = pool[:2 * need]
                batch += extra
                for m in extra:
                    spare[m.kind].remove(m)

        gen = sum(s[0] for s in stats.values())
        imp = sum(s[1] for s in stats.values())
        dis = sum(s[2] for s in stats.values())
        grand[0] += gen
        grand[1] += imp
        grand[2] += dis
        print('%s: %d generated, %d imported, %d distinct' % (rel, gen, imp,
                                                             dis))
        cells = []
        for k in KINDS:
            st = stats[k]
            if not candidates[k]:
                cells.append('%s n/a' % k)
                continue
            for i in range(4):
                totals[k][i] += st[i]
            cells.append('%s %d/%d/%d' % (k, st[0], st[1], st[2]))
            if st[1] == 0:
                failures.append('%s: no %s mutation imports (%d tried of %d '
                                'candidates)' % (rel, k, st[0],
                                                 len(candidates[k])))
        for i in range(0, len(cells), 6):
            print('    ' + ', '.join(cells[i:i + 6]))
        if imp < args.min_imported:
            failures.append('%s: only %d mutations import (want %d)' % (
                rel, imp, args.min_imported))

    print('per kind (generated/imported/distinct, invalid):')
    for k in KINDS:
        st = totals[k]
        print('    %-8s %5d/%d/%d, %d invalid' % (k, st[0], st[1], st[2],
                                                  st[3]))
    for line in failures:
        print('FAIL: ' + line)
    collisions = sum(1 for l in failures if 'COLLISION' in l)
    print('sensitivity: %d files, %d mutations, %d imported, %d distinct, '
          '%d collisions (%.1f s)' % (len(files), grand[0], grand[1],
                                      grand[2], collisions,
                                      time.time() - began))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
