#!/usr/bin/env python3
"""arch_counts.py — the structural counts issue 22 measures before and after the redesign.

Prints, for the tree at REPO (default: this checkout) and the static library LIB (default
build/libsluice.a):
  files per folder of src/; include circles (strongly connected components of the module graph,
  a module being src/<area>/<name> with its .c and .h, an edge from a module to every header it
  includes); functions longer than 80 lines; exported symbols without the sluice_ prefix; and
  functions in src/codemode/ that take more than 6 parameters.
Usage: scripts/arch_counts.py [REPO] [LIB]   (needs universal-ctags and nm)
"""
import collections
import os
import re
import subprocess
import sys

repo = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
lib = sys.argv[2] if len(sys.argv) > 2 else os.path.join(repo, "build", "libsluice.a")
src = os.path.join(repo, "src")

files = []
for root, _, names in os.walk(src):
    for n in names:
        if n.endswith((".c", ".h")):
            files.append(os.path.relpath(os.path.join(root, n), src))
files.sort()

print("== files per folder (src/<area>, subfolders included)")
per = collections.Counter(f.split("/")[0] for f in files)
for area in sorted(per):
    print(f"{area:10} {per[area]}")
print(f"{'total':10} {len(files)}")

# A module is a header with every .c that implements it: a .c implements the header it includes
# first (STYLE.md: each .c includes its own header first), so pipeline.c belongs to codemode.h.
inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
includes = {}
for f in files:
    with open(os.path.join(src, f), errors="replace") as fh:
        includes[f] = [m.group(1) for m in map(inc.match, fh) if m]
includes = {f: [i for i in incs if i in includes] for f, incs in includes.items()}
# A .c without a header of its own name belongs to the included header that declares most of
# its exported functions (pipeline.c implements codemode.h).
# Functions only, in C and C++ alike (a C++ namespace or struct block is not a function).
tags = subprocess.run(["ctags", "--c-kinds=f", "--c++-kinds=f", "--fields=+neS", "-o", "-", "-R",
                       src],
                      capture_output=True, text=True, check=True).stdout
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
    for i in includes[f]:
        if owner[i] != owner[f]:
            graph[owner[f]].add(owner[i])

# Tarjan's strongly connected components, iteratively (the graph has a few hundred nodes)
index, low, stack, on, sccs, counter = {}, {}, [], set(), [], [0]
def strong(v):
    work = [(v, iter(sorted(graph[v])))]
    index[v] = low[v] = counter[0]; counter[0] += 1; stack.append(v); on.add(v)
    while work:
        node, it = work[-1]
        advanced = False
        for w in it:
            if w not in index:
                index[w] = low[w] = counter[0]; counter[0] += 1; stack.append(w); on.add(w)
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
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == node:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))
for v in sorted(set(owner.values())):
    if v not in index:
        strong(v)
print(f"\n== include circles (modules that reach each other through headers): {len(sccs)}")
for c in sccs:
    print("  " + " <-> ".join(c))

long_fns, wide, wide_out = [], [], []
for line in tags.splitlines():
    parts = line.split("\t")
    name, path = parts[0], os.path.relpath(parts[1], src)
    fields = dict(p.split(":", 1) for p in parts[3:] if ":" in p)
    if "line" in fields and "end" in fields:
        n = int(fields["end"]) - int(fields["line"]) + 1
        if n > 80:
            long_fns.append((n, path, name))
    sig = fields.get("signature", "()").strip("()")
    nparams = 0 if sig in ("", "void") else len(re.split(r",(?![^()]*\))", sig))
    if nparams > 6:
        (wide if path.startswith("codemode/") else wide_out).append((nparams, path, name))
print(f"\n== functions longer than 80 lines: {len(long_fns)}")
for n, path, name in sorted(long_fns, reverse=True):
    print(f"  {n:5} {path} {name}")
print(f"\n== functions in src/codemode/ with more than 6 parameters: {len(wide)}")
for n, path, name in sorted(wide, reverse=True):
    print(f"  {n:3} {path} {name}")
print(f"\n== functions outside src/codemode/ with more than 6 parameters: {len(wide_out)}")
for n, path, name in sorted(wide_out, reverse=True):
    print(f"  {n:3} {path} {name}")

if os.path.exists(lib):
    nm = subprocess.run(["nm", "-g", "--defined-only", lib], capture_output=True, text=True,
                        check=True).stdout
    syms = sorted({l.split()[-1] for l in nm.splitlines()
                   if len(l.split()) == 3 and l.split()[1] in "TDBR"})
    bad = [s for s in syms if not s.startswith("sluice_")]
    print(f"\n== exported symbols of {os.path.basename(lib)} without the sluice_ prefix: "
          f"{len(bad)} of {len(syms)}")
    for s in bad:
        print("  " + s)
