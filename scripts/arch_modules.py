#!/usr/bin/env python3
"""arch_modules.py — the module graph of src/ and its include circles, read from the code.

Shared by scripts/arch_counts.py (which prints the circles with the other structure counts) and
scripts/arch_graph.py (whose --check, run by ctest lint_ctest_arch_graph, fails on any circle),
so the number in docs/architecture.md and the one lint holds at 0 are the same computation.
A module is a header with every .c that implements it: a .c implements its own name's header,
else the included header that declares most of its exported functions (pipeline.c implements
codemode.h). An edge goes from a module to every module whose header one of its files includes;
a circle is a strongly connected component of more than one module. Needs universal-ctags.
"""
import collections
import os
import re
import subprocess

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def read(src):
    """(files, tags, graph): the .c/.h files below src (relative, sorted), ctags' function lines
    (C and C++; a namespace or struct block is not a function), and the module graph."""
    files = []
    for root, _, names in os.walk(src):
        for n in names:
            if n.endswith((".c", ".h")):
                files.append(os.path.relpath(os.path.join(root, n), src))
    files.sort()
    includes = {}
    for f in files:
        with open(os.path.join(src, f), errors="replace") as fh:
            includes[f] = [m.group(1) for m in map(INCLUDE.match, fh) if m]
    includes = {f: [i for i in incs if i in includes] for f, incs in includes.items()}
    try:
        tags = subprocess.run(["ctags", "--c-kinds=f", "--c++-kinds=f", "--fields=+neS", "-o", "-",
                               "-R", src], capture_output=True, text=True, check=True).stdout
    except FileNotFoundError:
        raise SystemExit("arch_modules: needs universal-ctags (scripts/bootstrap.sh installs it)")
    exported = collections.defaultdict(set)
    for line in tags.splitlines():
        parts = line.split("\t")
        if "file:" not in parts[3:]:
            exported[os.path.relpath(parts[1], src)].add(parts[0])
    texts = {}

    def text(h):
        if h not in texts:
            with open(os.path.join(src, h), errors="replace") as fh:
                texts[h] = fh.read()
        return texts[h]

    owner = {}
    for f in files:
        own = os.path.splitext(f)[0]
        if f.endswith(".c") and not os.path.exists(os.path.join(src, own + ".h")):
            best = max(((sum(re.search(r"\b%s\s*\(" % n, text(h)) is not None
                             for n in exported[f]), h) for h in includes[f]), default=(0, None))
            if best[0] > 0:
                own = os.path.splitext(best[1])[0]
        owner[f] = own
    graph = collections.defaultdict(set)
    for f in files:
        graph.setdefault(owner[f], set())
        for i in includes[f]:
            if owner[i] != owner[f]:
                graph[owner[f]].add(owner[i])
    return files, tags, graph


def circles(graph):
    """The include circles of graph, each a sorted list of modules (Tarjan's strongly connected
    components, iteratively: the graph has a few hundred nodes)."""
    index, low, stack, on, sccs, counter = {}, {}, [], set(), [], [0]

    def strong(v):
        work = [(v, iter(sorted(graph[v])))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    advanced = True
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    sccs.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return sccs
