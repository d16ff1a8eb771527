#!/usr/bin/env python3
"""Checks the relative links of every Markdown file in a repository.

Usage: check-links.py REPOSITORY_ROOT

Every inline link [text](target) and image ![alt](target) in every *.md file
under the root (.git and build directories skipped) whose target is not a
URL (http:, https:, mailto:, or any other scheme) must name an existing file
or directory, relative to the file holding the link (or to the root, for a
target starting with '/'); a '#anchor' must match a heading of the target
Markdown file (or of the file itself, for a bare '#anchor'), slugged as
GitHub does. Links inside fenced code blocks and inline code spans are
ignored. Prints each broken link as FILE:LINE: TARGET: REASON and exits 1
if there is any, 0 otherwise.
"""
import os
import re
import sys
import urllib.parse

SKIP_DIRS = {'.git', 'build', 'node_modules'}
FENCE = re.compile(r'^ {0,3}(`{3,}|~{3,})')
HEADING = re.compile(r'^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$')
SETEXT = re.compile(r'^ {0,3}(=+|-+)[ \t]*$')
# [text](target) or [text](target "title"); text may span lines but holds no brackets
LINK = re.compile(r'!?\[([^\[\]]*)\]\(\s*(<[^>]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)(?:\s+(?:"[^"]*"|\'[^\']*\'|\([^)]*\)))?\s*\)')
SCHEME = re.compile(r'^[A-Za-z][A-Za-z0-9+.-]*:')


def strip_fences(lines):
    """The lines with those inside fenced code blocks (and the fences) blanked."""
    out, fence = [], None
    for line in lines:
        m = FENCE.match(line)
        if fence is None and m:
            fence = m.group(1)
            out.append('')
        elif fence is not None:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) \
                    and line.strip() == m.group(1):
                fence = None
            out.append('')
        else:
            out.append(line)
    return out


def strip_code_spans(text):
    """Blanks inline code spans (keeping newlines, so line numbers hold)."""
    def blank(m):
        return ''.join('\n' if c == '\n' else ' ' for c in m.group(0))
    return re.sub(r'(`+)(?:(?!\1).|\n(?!\s*\n))+?\1', blank, text)


def slug(text):
    """GitHub's anchor for a heading's text."""
    text = re.sub(r'!?\[([^\]]*)\]\([^)]*\)', r'\1', text)  # links: their text
    text = re.sub(r'<[^>]+>', '', text)                       # inline HTML
    text = text.strip().lower()
    text = re.sub(r'[^\w\- ]', '', text)                      # punctuation (keeps - and _)
    return text.replace(' ', '-')


_anchors = {}


def anchors(path):
    """Every anchor of a Markdown file's headings (duplicates numbered)."""
    if path not in _anchors:
        with open(path, encoding='utf-8') as f:
            lines = strip_fences(f.read().split('\n'))
        seen, result = {}, set()
        for i, line in enumerate(lines):
            m = HEADING.match(line)
            if m:
                text = m.group(2)
            elif SETEXT.match(line) and i > 0 and lines[i - 1].strip() \
                    and not HEADING.match(lines[i - 1]):
                text = lines[i - 1].strip()
            else:
                continue
            base = slug(text)
            n = seen.get(base, 0)
            seen[base] = n + 1
            result.add(base if n == 0 else f'{base}-{n}')
        # explicit HTML anchors
        for line in lines:
            for m in re.finditer(r'<a\s+(?:name|id)="([^"]+)"', line):
                result.add(m.group(1))
        _anchors[path] = result
    return _anchors[path]


def markdown_files(root):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for name in sorted(filenames):
            if name.lower().endswith('.md'):
                yield os.path.join(dirpath, name)


def check(root):
    broken = []
    root = os.path.abspath(root)
    for path in markdown_files(root):
        with open(path, encoding='utf-8') as f:
            text = f.read()
        text = strip_code_spans('\n'.join(strip_fences(text.split('\n'))))
        rel = os.path.relpath(path, root)
        for m in LINK.finditer(text):
            target = m.group(2).strip('<>')
            line = text.count('\n', 0, m.start()) + 1
            if not target or SCHEME.match(target):
                continue
            file_part, _, anchor = target.partition('#')
            file_part = urllib.parse.unquote(file_part)
            if file_part:
                base = root if file_part.startswith('/') else os.path.dirname(path)
                dest = os.path.normpath(os.path.join(base, file_part.lstrip('/')))
                if not os.path.exists(dest):
                    broken.append(f'{rel}:{line}: {target}: no such file or directory')
                    continue
                if os.path.commonpath([root, dest]) != root:
                    broken.append(f'{rel}:{line}: {target}: outside the repository')
                    continue
            else:
                dest = path
            if anchor:
                if os.path.isdir(dest):
                    dest_md = os.path.join(dest, 'README.md')
                    if not os.path.exists(dest_md):
                        broken.append(f'{rel}:{line}: {target}: an anchor into a directory without README.md')
                        continue
                    dest = dest_md
                if not dest.lower().endswith('.md'):
                    continue  # anchors into source files (#L10) are not checked
                if urllib.parse.unquote(anchor) not in anchors(dest):
                    broken.append(f'{rel}:{line}: {target}: no heading with anchor #{anchor}')
    return broken


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    if not os.path.isdir(root):
        sys.exit(f'{root}: not a directory')
    broken = check(root)
    for b in broken:
        print(b)
    count = sum(1 for _ in markdown_files(root))
    if broken:
        print(f'{len(broken)} broken links in {count} Markdown files')
        return 1
    print(f'all relative links resolve in {count} Markdown files')
    return 0


if __name__ == '__main__':
    sys.exit(main())
