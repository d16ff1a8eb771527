#!/usr/bin/env python3
"""Writes malformed HLO files whose errors must stay short and printable:
`hostile-input.py OUTDIR` writes long-opcode.hlo (a 5 MB opcode),
long-operand.hlo (a 3 MB operand name), binary.hlo (control bytes and
invalid UTF-8 in an opcode) and long-line.hlo (an error at the end of a
200 KB line)."""

import os
import sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
head = 'HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n'
files = {
    'long-opcode.hlo': head + '  ROOT r = f32[] ' + 'x' * 5_000_000 + '(p)\n}\n',
    'long-operand.hlo': head + '  ROOT r = f32[] negate(' + 'y' * 3_000_000 + ')\n}\n',
    'long-line.hlo': head + '  ROOT r = f32[] negate(p), frontend_attributes={' +
    ','.join('k%d="v"' % i for i in range(20000)) + ' ?}\n}\n',
}
for name, text in files.items():
    with open(os.path.join(out, name), 'w') as f:
        f.write(text)
with open(os.path.join(out, 'binary.hlo'), 'wb') as f:
    f.write(head.encode() + b'  ROOT r = f32[] neg\x01\x02\xff\xfe\x1b[31mate(p)\n}\n')
