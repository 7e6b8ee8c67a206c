#!/usr/bin/env python3
"""transcript_diff.py — compares two folders of e2e MCP transcripts (SLUICE_E2E_TRANSCRIPT).

Each file holds one JSON line per message an SDK client sent (">") or received ("<"). What may
differ between two runs of the same code is masked first: JSON-RPC ids, approval tokens,
session and approval ids, times and durations (a quota's retry_after_seconds too), temporary
paths and the e2e work folder, token key ids, and per-run random hex. The messages of a file
are compared as a sorted list, since tests of one file may interleave.
Usage: scripts/transcript_diff.py BEFORE_DIR AFTER_DIR   (exit 1 and a unified diff on change)
"""
import difflib
import json
import os
import re
import sys

MASKS = [
    (re.compile(r"untrusted-data-[0-9a-f]+"), "untrusted-data-<nonce>"),
    (re.compile(r"v\d\.[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_.-]+"), "<token>"),
    (re.compile(r"[A-Za-z0-9_-]{40,}"), "<opaque>"),
    (re.compile(r"\b[0-9a-f]{16,}\b"), "<hex>"),
    (re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"), "<uuid>"),
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z?"), "<time>"),
    (re.compile(r"/tmp/[^\s\"']+"), "<tmp>"),
    (re.compile(r"\b\d+(\.\d+)? ?(ms|s|µs)\b"), "<duration>"),
    (re.compile(r"127\.0\.0\.1:\d+"), "127.0.0.1:<port>"),
    # the e2e work folder, $SLUICE_BUILD_DIR/e2e-NAME: two builds compared live in two folders
    (re.compile(r"/[^\s\"']*/e2e-([a-z0-9-]+)/"), r"<build>/e2e-\1/"),
    # a token key's id: its date and random hex differ per key, and each run makes its keys
    (re.compile(r"\bk\d{8}-[0-9a-f]{8}\b"), "<key-id>"),
]
VOLATILE_KEYS = {"id", "elapsed_ms", "duration_ms", "expires_at", "issued_at", "approval_token",
                 "requestId", "sessionId", "session_id", "approval_id", "time", "ts", "at",
                 "retry_after_seconds"}


def mask(value):
    if isinstance(value, dict):
        return {k: "<v>" if k in VOLATILE_KEYS else mask(v) for k, v in value.items()}
    if isinstance(value, list):
        return [mask(v) for v in value]
    if isinstance(value, str):
        for pattern, repl in MASKS:
            value = pattern.sub(repl, value)
        return value
    return value


def lines(path):
    out = []
    with open(path) as fh:
        for raw in fh:
            rec = json.loads(raw)
            out.append(rec["dir"] + " " + json.dumps(mask(rec["msg"]), sort_keys=True))
    return sorted(out)


before, after = sys.argv[1], sys.argv[2]
status = 0
for name in sorted(set(os.listdir(before)) | set(os.listdir(after))):
    a, b = os.path.join(before, name), os.path.join(after, name)
    if not (os.path.exists(a) and os.path.exists(b)):
        print(f"{name}: only in {'before' if os.path.exists(a) else 'after'}")
        status = 1
        continue
    la, lb = lines(a), lines(b)
    if la != lb:
        status = 1
        print(f"{name}: {len(la)} vs {len(lb)} messages differ")
        diff = [l for l in difflib.unified_diff(la, lb, "before", "after", n=0)
                if l[:1] in "+-" and l[:3] not in ("---", "+++")]
        sys.stdout.writelines(l[:400] + "\n" for l in diff[:20])
    else:
        print(f"{name}: {len(la)} messages equal")
sys.exit(status)
