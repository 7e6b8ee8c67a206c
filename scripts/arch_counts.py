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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import arch_modules  # noqa: E402

repo = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
lib = sys.argv[2] if len(sys.argv) > 2 else os.path.join(repo, "build", "libsluice.a")
src = os.path.join(repo, "src")

files, tags, graph = arch_modules.read(src)

print("== files per folder (src/<area>, subfolders included)")
per = collections.Counter(f.split("/")[0] for f in files)
for area in sorted(per):
    print(f"{area:10} {per[area]}")
print(f"{'total':10} {len(files)}")

# The module graph and its circles: scripts/arch_modules.py, which arch_graph.py --check shares.
sccs = arch_modules.circles(graph)
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
