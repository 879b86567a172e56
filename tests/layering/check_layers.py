#!/usr/bin/env python3
"""Fails when a folder of src/ uses a folder above it in the layer order, or
when folders use each other in a cycle.

The order is the fenced ```layers block of the architecture page (one level a
line, lowest first; a line "A B -> X Y" names folders kept apart that may use
only X and Y).  Two kinds of use are read:

  * the #include lines of every .c and .h under src/: a header in
    src/include/rpl/ belongs to the folder whose objects define the functions
    it declares, any other header to the folder it sits in;
  * the calls between folders: `nm` on the objects of the build (a file with
    one object path a line, as CMake's $<TARGET_OBJECTS> gives them), each
    undefined symbol charged to the folder whose object defines it.

Each violation is one line: file:line, what it uses, the two folders.
usage: check_layers.py --src SRC --layers ARCHITECTURE.md
                       [--objects LIST --build-dir DIR --nm NM]
Exit 0 clean, 1 violations, 2 bad input.
"""

import argparse
import os
import re
import subprocess
import sys

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
CALL_RE = re.compile(r'\b([A-Za-z_]\w*)\s*\(')
COMMENT_RE = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)


class BadInput(Exception):
    pass


def read_layers(path):
    """Returns ({folder: level}, {apart folder: set of folders it may use})."""
    try:
        text = open(path, encoding='utf-8').read()
    except OSError as e:
        raise BadInput(f'{path}: {e.strerror}')
    m = re.search(r'^```layers\n(.*?)^```', text, re.S | re.M)
    if not m:
        raise BadInput(f'{path}: no ```layers block')
    level, apart = {}, {}
    for n, line in enumerate(m.group(1).splitlines()):
        line = line.split('#', 1)[0].strip()
        if not line:
            continue
        if '->' in line:
            names, uses = line.split('->', 1)
            for name in names.split():
                apart[name] = set(uses.split())
            continue
        for name in line.split():
            if name in level:
                raise BadInput(f'{path}: {name} is named twice in the layers block')
            level[name] = n
    for name, uses in apart.items():
        unknown = uses - set(level)
        if unknown:
            raise BadInput(f'{path}: {name} may use {", ".join(sorted(unknown))}, '
                           'which is not a level')
    return level, apart


def folder_of(rel):
    """src-relative path -> folder name (tools/<x> are folders of their own,
    optimize/<x> belong to optimize)."""
    parts = rel.split('/')
    if len(parts) < 2:
        return None
    if parts[0] == 'tools' and len(parts) > 2:
        return 'tools/' + parts[1]
    return parts[0]


def source_files(src):
    out = []
    for root, dirs, files in os.walk(src):
        dirs.sort()
        for f in sorted(files):
            if f.endswith(('.c', '.h')):
                out.append(os.path.relpath(os.path.join(root, f), src))
    return out


def resolve_include(src, rel, quote, name, by_suffix):
    """The src-relative path of an included file of the tree, or None for a
    system header: next to the includer (quoted), src/include, then the one
    file of the tree with that path (a folder given with -I)."""
    tries = []
    if quote == '"':
        tries.append(os.path.normpath(os.path.join(os.path.dirname(rel), name)))
    tries.append(os.path.normpath(os.path.join('include', name)))
    for t in tries:
        if os.path.isfile(os.path.join(src, t)):
            return t
    hits = by_suffix.get(name.lstrip('./'), [])
    return hits[0] if len(hits) == 1 else None


def run_nm(nm, objects):
    """{object: (set of defined globals, set of undefined)}."""
    table = {o: (set(), set()) for o in objects}
    step = 200
    for i in range(0, len(objects), step):
        chunk = objects[i:i + step]
        try:
            res = subprocess.run([nm, '-A', '-P', *chunk], capture_output=True, text=True)
        except OSError as e:
            raise BadInput(f'{nm}: {e.strerror}')
        if res.returncode != 0:
            raise BadInput(f'{nm}: {res.stderr.strip()}')
        for line in res.stdout.splitlines():
            # "object: symbol type [value size]"
            head, _, rest = line.rpartition(': ')
            fields = rest.split()
            if len(fields) < 2 or head not in table:
                continue
            sym, kind = fields[0], fields[1]
            if kind == 'U':
                table[head][1].add(sym)
            elif kind in 'TDBRCVWG':
                table[head][0].add(sym)
    return table


def object_source(obj, build_dir, src):
    """build/<dir>/CMakeFiles/<target>.dir/<path>.c.o -> src-relative <dir>/<path>.c"""
    rel = os.path.relpath(obj, build_dir)
    m = re.match(r'(.*?)/?CMakeFiles/[^/]+\.dir/(.*)\.o$', rel)
    if not m:
        raise BadInput(f'{obj}: not an object of a CMake target under {build_dir}')
    path = os.path.normpath(os.path.join(m.group(1), m.group(2)))
    top = os.path.relpath(src, os.path.dirname(os.path.abspath(src)))
    if not path.startswith(top + '/'):
        return None
    return path[len(top) + 1:]


def first_line(src, rel, sym):
    """The first line of the file that uses `sym`, past its declarations."""
    use = re.compile(r'\b' + re.escape(sym) + r'\b')
    declaration = re.compile(r'\s*(extern\s+|static\s+|const\s+)*[A-Za-z_]\w*[\s*]+$')
    first = 0
    try:
        with open(os.path.join(src, rel), encoding='utf-8', errors='replace') as f:
            for n, line in enumerate(f, 1):
                m = use.search(line)
                if not m:
                    continue
                first = first or n
                prefix = line[:m.start()]
                if not (declaration.match(prefix) and line.rstrip().endswith(';')
                        and prefix.split()[0] != 'return'):
                    return n
    except OSError:
        pass
    return first


class Graph:
    def __init__(self):
        self.edges = {}  # (from, to) -> evidence lines

    def add(self, a, b, evidence):
        if a != b:
            self.edges.setdefault((a, b), []).append(evidence)


def strongly_connected(nodes, edges):
    """Tarjan: the components with more than one folder."""
    succ = {n: sorted(b for (a, b) in edges if a == n) for n in nodes}
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in succ[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for n in sorted(nodes):
        if n not in index:
            visit(n)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--src', required=True)
    ap.add_argument('--layers', required=True)
    ap.add_argument('--objects')
    ap.add_argument('--build-dir')
    ap.add_argument('--nm', default='nm')
    args = ap.parse_args()
    src = os.path.normpath(args.src)
    level, apart = read_layers(args.layers)
    files = source_files(src)
    by_suffix = {}
    for rel in files:
        parts = rel.split('/')
        for i in range(len(parts)):
            by_suffix.setdefault('/'.join(parts[i:]), []).append(rel)

    # Which folder defines each global symbol, from the objects.
    table, obj_src, defined_in = {}, {}, {}
    if args.objects:
        if not args.build_dir:
            raise BadInput('--objects needs --build-dir')
        with open(args.objects, encoding='utf-8') as f:
            objects = sorted({l.strip() for l in f if l.strip()})
        missing = [o for o in objects if not os.path.isfile(o)]
        if missing:
            raise BadInput(f'{missing[0]}: no such object (build first)')
        table = run_nm(args.nm, objects)
        for o in objects:
            rel = object_source(o, args.build_dir, src)
            if rel is None:
                continue
            obj_src[o] = rel
            for sym in table[o][0]:
                defined_in.setdefault(sym, set()).add(folder_of(rel))

    # A public header belongs to the folder that defines its functions.
    owners = {}
    problems = []
    for rel in files:
        if not rel.startswith('include/'):
            owners[rel] = {folder_of(rel)}
            continue
        text = COMMENT_RE.sub('', open(os.path.join(src, rel), encoding='utf-8').read())
        folders = {}
        for sym in set(CALL_RE.findall(text)):
            for fo in defined_in.get(sym, ()):
                folders.setdefault(fo, []).append(sym)
        owners[rel] = set(folders)  # empty: types and macros only, no folder to charge
        if len(folders) > 1:
            problems.append(f'src/{rel}: declares functions of '
                            + ', '.join(f'{fo} ({min(folders[fo])})' for fo in sorted(folders))
                            + '; a public header belongs to one folder')

    graph = Graph()
    for rel in files:
        if len(owners[rel]) != 1:
            continue
        a = next(iter(owners[rel]))
        with open(os.path.join(src, rel), encoding='utf-8', errors='replace') as f:
            for n, line in enumerate(f, 1):
                m = INCLUDE_RE.match(line)
                if not m:
                    continue
                target = resolve_include(src, rel, m.group(1), m.group(2), by_suffix)
                if target is None or a in owners[target]:
                    continue
                for b in sorted(owners[target]):
                    graph.add(a, b, f'src/{rel}:{n}: includes {m.group(2)} (of {b})')
    for o in sorted(obj_src):
        rel = obj_src[o]
        a = folder_of(rel)
        for sym in sorted(table[o][1]):
            for b in sorted(defined_in.get(sym, ())):
                graph.add(a, b, f'src/{rel}:{first_line(src, rel, sym)}: calls {sym} (of {b})')

    def evidence(edge):
        lines = sorted(set(graph.edges[edge]))
        more = f'\n    ... {len(lines) - 12} more' if len(lines) > 12 else ''
        return '\n'.join(f'    {why}' for why in lines[:12]) + more

    nodes = {f for edge in graph.edges for f in edge}
    for fo in sorted(nodes):
        if fo not in level and fo not in apart:
            problems.append(f'{fo}: folder is not in the layers block of {args.layers}')
    for (a, b) in sorted(graph.edges):
        if a in apart:
            if b not in apart[a]:
                problems.append(f'{a} -> {b}: {a} is kept apart and may use only '
                                + ', '.join(sorted(apart[a])) + ':\n' + evidence((a, b)))
        elif b in apart:
            problems.append(f'{a} -> {b}: nothing may use {b}, it is kept apart:\n'
                            + evidence((a, b)))
        elif a in level and b in level and level[b] > level[a]:
            problems.append(f'{a} -> {b} goes up the layer order:\n' + evidence((a, b)))
    # An upward edge is named above; a cycle left without one is between
    # folders of one level.
    level_edges = {(a, b) for (a, b) in graph.edges
                   if a in level and b in level and level[b] <= level[a]}
    for comp in strongly_connected(nodes, level_edges):
        inside = [e for e in sorted(level_edges) if e[0] in comp and e[1] in comp]
        problems.append('cycle between folders ' + ', '.join(comp) + ':\n'
                        + '\n'.join(f'  {a} -> {b}:\n' + evidence((a, b)) for a, b in inside))

    for p in problems:
        print(p)
    if problems:
        print(f'check_layers: {len(problems)} violation(s) of the layer order in {args.layers}')
        return 1
    print(f'check_layers: {len(files)} files, {len(table)} objects, '
          f'{len(graph.edges)} edges between folders, all down the layer order')
    return 0


if __name__ == '__main__':
    try:
        sys.exit(main())
    except BadInput as e:
        print(f'check_layers: {e}', file=sys.stderr)
        sys.exit(2)
