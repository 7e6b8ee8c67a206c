#!/usr/bin/env python3
"""arch_graph.py — draws docs/img/layers.{dot,svg,png} and request_path.{dot,svg,png} from the
includes.

layers.svg: one box per area of src/, ranked as scripts/check_layers.sh ranks them (read from
that script, so the picture and the check cannot disagree), an arrow from an area to each lower
area it includes (no counts on the arrows: the picture, and the checked-in DOT, change when a
layer starts or stops depending on another, not with every include line).
request_path.svg: the modules one execute_code request passes through, transport to executor,
with every include edge between them as the code has it (a module = src/<area>/<name>.c + .h).
The .dot files are checked in beside the pictures: `--check` regenerates the DOT text only and
fails when it differs from docs/img/*.dot (no graphviz needed; ctest lint_ctest_arch_graph runs
it), so a change to the includes that is not redrawn fails the tests instead of drifting.
Both modes also fail on an include circle (scripts/arch_modules.py, the computation
scripts/arch_counts.py prints): issue 22 took the count to 0, and a new one is refused by name.
Usage: scripts/arch_graph.py [--check] [REPO]
  (drawing needs graphviz `dot`, the circles universal-ctags; scripts/bootstrap.sh installs both)
"""
import collections
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import arch_modules  # noqa: E402

args = sys.argv[1:]
check = "--check" in args
args = [a for a in args if a != "--check"]
repo = args[0] if args else os.path.join(os.path.dirname(__file__), "..")
src = os.path.join(repo, "src")
out = os.path.join(repo, "docs", "img")
stale = []

with open(os.path.join(repo, "scripts", "check_layers.sh")) as fh:
    text = fh.read()
rank = {a: int(r) for a, r in re.findall(r"\[([a-z]+)\]=(\d+)", text) if a != "sluice"}

inc = re.compile(r'^\s*#\s*include\s+"([a-z_]+/[^"]+)"')
edges = collections.Counter()
mod_edges = set()
for root, _, names in os.walk(src):
    for n in sorted(names):
        if not n.endswith((".c", ".h")):
            continue
        path = os.path.relpath(os.path.join(root, n), src)
        area, mod = path.split("/")[0], os.path.splitext(path)[0]
        with open(os.path.join(src, path), errors="replace") as fh:
            for line in fh:
                m = inc.match(line)
                if not m:
                    continue
                to = m.group(1).split("/")[0]
                if to != area and to in rank:
                    edges[(area, to)] += 1
                mod_edges.add((mod, os.path.splitext(m.group(1))[0]))


def render(name, dot):
    target = os.path.join(out, name + ".dot")
    if check:
        try:
            with open(target) as fh:
                same = fh.read() == dot
        except FileNotFoundError:
            same = False
        if not same:
            stale.append(target)
        return
    os.makedirs(out, exist_ok=True)
    with open(target, "w") as fh:
        fh.write(dot)
    for fmt in ("svg", "png"):
        subprocess.run(["dot", "-T" + fmt, "-Gdpi=80", "-o", os.path.join(out, f"{name}.{fmt}"),
                        target], check=True)


lines = ["digraph layers {", "  rankdir=TB; node [shape=box, fontname=Helvetica];",
         "  edge [color=gray40, fontname=Helvetica, fontsize=9];"]
for r in sorted(set(rank.values()), reverse=True):
    same = [a for a in rank if rank[a] == r]
    lines.append("  { rank=same; " + " ".join(f'"{a}"' for a in same) + " }")
ranks = sorted(set(rank.values()), reverse=True)
for hi, lo in zip(ranks, ranks[1:]):  # keeps empty areas (no includes yet) in their place
    top = min(a for a in rank if rank[a] == hi)
    low = min(a for a in rank if rank[a] == lo)
    lines.append(f'  "{top}" -> "{low}" [style=invis];')
for a, b in sorted(edges):
    lines.append(f'  "{a}" -> "{b}";')
lines.append("}")
render("layers", "\n".join(lines) + "\n")

# The stages of one execute_code over HTTP, in order (docs/architecture.md "A request").
path = ["transport/http", "transport/http_guard", "transport/http_session", "mcp/server",
        "mcp/jsonrpc", "surface/tools", "codemode/codemode", "codemode/pipeline",
        "codemode/runtime", "token/token", "token/key_store", "codemode/analysis_cache",
        "lang/registry", "lang/frontend", "facts/codefacts", "policy/policy", "codemode/risk",
        "codemode/approval_gate", "state/approval", "state/replay", "state/audit",
        "exec/executor", "codemode/present"]
have = [m for m in path if os.path.exists(os.path.join(src, m + ".c")) or
        os.path.exists(os.path.join(src, m + ".h"))]
lines = ["digraph request {", "  rankdir=LR; node [shape=box, fontname=Helvetica, fontsize=10];",
         "  edge [color=gray50];"]
for area in dict.fromkeys(m.split("/")[0] for m in have):
    lines.append(f'  subgraph "cluster_{area}" {{ label="{area}"; fontname=Helvetica; ' +
                 " ".join(f'"{m}";' for m in have if m.split("/")[0] == area) + " }")
for a, b in sorted(mod_edges):
    if a in have and b in have and a != b:
        lines.append(f'  "{a}" -> "{b}";')
lines.append("}")
render("request_path", "\n".join(lines) + "\n")
circles = arch_modules.circles(arch_modules.read(src)[2])
for c in circles:
    print("arch_graph: include circle " + " <-> ".join(c) + ": put what both need in a header "
          "below them (as mcp/types.h is below mcp/server.h and mcp/server_impl.h)",
          file=sys.stderr)
if check:
    for target in stale:
        print(f"arch_graph: {target} is not what the includes draw today; run "
              f"scripts/arch_graph.py and commit docs/img/", file=sys.stderr)
    sys.exit(1 if stale or circles else 0)
print(f"wrote {out}/layers.svg ({len(edges)} area edges) and {out}/request_path.svg "
      f"({len(have)} modules)")
sys.exit(1 if circles else 0)
