#!/usr/bin/env python3
"""Runs every `kiln cache` command against caches whose parts were replaced
by symbolic links into a victim directory, and checks that the victim is
untouched: no file of it written, changed or deleted, none created.

  symlink-attack.py KILN GRAPH OTHER-GRAPH WORKDIR

For each layout (objects/ a link, objects/<shard>/ a link, logs/ a link,
tmp/ a link, index.db a dangling link into the victim) and each command
(check, put, get, ls, stats, explain, verify, verify --repair, prune, rm,
clear), a fresh cache is filled with GRAPH (and a failed compilation of
OTHER-GRAPH), the layout is applied, the command runs, and the victim is
compared with what it held before. Prints one line per case (the command's
exit status and first line of output) and a summary line.
"""

import hashlib
import os
import shutil
import subprocess
import sys

kiln, graph, other, work = sys.argv[1:5]


def run(args, cache):
    result = subprocess.run([kiln, 'cache'] + args + ['--cache-dir', cache],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return result.returncode, result.stdout.decode('utf-8', 'replace')


def snapshot(root):
    state = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            if os.path.islink(path) or os.path.isdir(path):
                state[rel] = 'dir'
            else:
                with open(path, 'rb') as f:
                    state[rel] = hashlib.sha256(f.read()).hexdigest()
    return state


def key_of(cache):
    code, out = run(['check', graph, '--json'], cache)
    import json
    return json.loads(out[out.index('{'):])['graphs'][0]['key']


def make_victim(path, key):
    os.makedirs(path)
    # Files named like the cache's own, and others: none may be touched.
    for name in [key, key + '.log', '0' * 32, 'precious.txt', 'index.db']:
        with open(os.path.join(path, name), 'w') as f:
            f.write('victim data ' + name)
    os.makedirs(os.path.join(path, key[:2]))
    with open(os.path.join(path, key[:2], key), 'w') as f:
        f.write('victim artifact')


def layouts(cache, victim, key):
    def swap(part):
        def apply():
            target = os.path.join(cache, part)
            shutil.rmtree(target)
            os.symlink(victim, target)
        return apply

    def swap_index():
        for suffix in ['', '-wal', '-shm']:
            path = os.path.join(cache, 'index.db' + suffix)
            if os.path.exists(path):
                os.remove(path)
        os.symlink(os.path.join(victim, 'new.db'),
                   os.path.join(cache, 'index.db'))

    return [('objects', swap('objects')),
            ('objects/' + key[:2], swap(os.path.join('objects', key[:2]))),
            ('logs', swap('logs')),
            ('tmp', swap('tmp')),
            ('index.db', swap_index)]


commands = [
    ('check', lambda key: ['check', graph, other]),
    ('put', lambda key: ['put', other, graph]),
    ('get', lambda key: ['get', graph, '-o', os.path.join(work, 'out.bin')]),
    ('ls', lambda key: ['ls']),
    ('stats', lambda key: ['stats']),
    ('explain', lambda key: ['explain', other]),
    ('verify', lambda key: ['verify']),
    ('verify --repair', lambda key: ['verify', '--repair']),
    ('prune', lambda key: ['prune', '--max-size', '0']),
    ('rm', lambda key: ['rm', key]),
    ('clear', lambda key: ['clear']),
]

failures = 0
cases = 0
probe = os.path.join(work, 'probe')
run(['put', graph, graph], probe)
key = key_of(probe)
for layout_index, (layout_name, _) in enumerate(layouts(probe, '', key)):
    for command_name, make_args in commands:
        case = os.path.join(work, 'case-%d-%s' % (layout_index,
                                                    command_name.replace(' ', '-')))
        cache = os.path.join(case, 'cache')
        victim = os.path.join(case, 'victim')
        run(['put', graph, graph], cache)
        make_victim(victim, key)
        dict(layouts(cache, victim, key))[layout_name]()
        before = snapshot(victim)
        code, out = run(make_args(key), cache)
        after = snapshot(victim)
        cases += 1
        first = out.strip().splitlines()[0] if out.strip() else ''
        first = first.replace(case, '<case>')
        untouched = before == after
        crashed = code < 0 or code > 2
        if not untouched or crashed:
            failures += 1
        # The shard's name (the key's first two digits) as XX; only in the
        # shard's layout: other names (objects, index.db) may hold the
        # same two letters.
        shown = ('objects/XX' if layout_name == 'objects/' + key[:2]
                 else layout_name)
        print('%-16s %-16s exit %d %s %s' % (shown,
                                             command_name, code,
                                             'untouched' if untouched
                                             else 'VICTIM CHANGED', first))
print('symlink attack: %d cases, %d with the victim changed or a crash'
      % (cases, failures))
sys.exit(1 if failures else 0)
