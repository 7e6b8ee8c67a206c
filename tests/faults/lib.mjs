// lib.mjs — shared pieces of the fault tests: a real `sluice serve` over HTTP on loopback in a
// fresh directory (demo DuckDB file, signing key, hash-chained audit log), its stderr, its exit,
// and reading the audit log back. The MCP client is bench/load/mcp_http.mjs (the load driver's).
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

export { McpClient, post } from "../../bench/load/mcp_http.mjs";
export { freePort } from "../e2e/harness.mjs"; // needs SLUICE_BUILD_DIR, as ctest sets it
import { freePort } from "../e2e/harness.mjs";

export const SLUICE = process.env.SLUICE_BIN;
if (!SLUICE) throw new Error("set SLUICE_BIN (ctest does)");
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// A work directory with demo.duckdb and token.key; remove() deletes it.
export function workDir() {
  const dir = mkdtempSync(path.join(tmpdir(), "sluice-faults-"));
  execFileSync(SLUICE, ["demo-db", path.join(dir, "demo.duckdb")]);
  execFileSync(SLUICE, ["keygen", "-o", path.join(dir, "token.key")]);
  return { dir, file: (f) => path.join(dir, f), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

// The config the fault tests share, the load benchmark's (bench/load/sluice.toml: DuckDB demo
// file, code mode with an audit log, a curated tool); codeMode: more [code_mode] keys, extra:
// more sections.
export function config({ codeMode = "", extra = "" } = {}) {
  const base = readFileSync(path.join(import.meta.dirname, "../../bench/load/sluice.toml"), "utf8");
  return `${base.replace(/^audit_log = .*$/m, (line) => `${line}\n${codeMode}`)}\n${extra}`;
}

// Starts `sluice serve` on a free port in work.dir with the given config text; resolves once
// /healthz answers. prefix: a command (and its arguments) the server runs under (e.g. prlimit).
export async function startServer(work, toml, { prefix = [] } = {}) {
  writeFileSync(work.file("sluice.toml"), toml);
  const port = await freePort();
  const argv = [...prefix, SLUICE, "serve", "-c", work.file("sluice.toml"), "--http", `127.0.0.1:${port}`];
  const proc = spawn(argv[0], argv.slice(1), { stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  proc.stderr.on("data", (d) => (log += d));
  const exited = new Promise((resolve) => proc.on("exit", (code, signal) => resolve({ code, signal })));
  const srv = { port, proc, exited, url: `http://127.0.0.1:${port}/mcp`, log: () => log,
    get: (p) => fetch(`http://127.0.0.1:${port}${p}`) };
  for (let i = 0; i < 100; i++) {
    if (proc.exitCode !== null) throw new Error(`server exited (${proc.exitCode}):\n${log}`);
    try {
      await srv.get("/healthz");
      return srv;
    } catch {
      await sleep(100);
    }
  }
  proc.kill("SIGKILL");
  throw new Error(`server did not listen:\n${log}`);
}

// Stops a server (SIGTERM) and resolves its { code, signal }; SIGKILL after ms.
export async function stopServer(srv, ms = 15000) {
  if (srv.proc.exitCode === null && srv.proc.signalCode === null) srv.proc.kill("SIGTERM");
  const t = setTimeout(() => srv.proc.kill("SIGKILL"), ms);
  const r = await srv.exited;
  clearTimeout(t);
  return r;
}

// The audit log's records (parsed lines; a torn last line is skipped).
export function auditRecords(work) {
  const f = work.file("audit.jsonl");
  if (!existsSync(f)) return [];
  return readFileSync(f, "utf8").split("\n").filter((l) => l.trim() !== "").flatMap((l) => {
    try {
      return [JSON.parse(l)];
    } catch {
      return [];
    }
  });
}

// `sluice audit verify` on the work dir's log: { ok, out }.
export function verifyAudit(work) {
  try {
    return { ok: true, out: execFileSync(SLUICE, ["audit", "verify", work.file("audit.jsonl")], { stdio: "pipe" }).toString() };
  } catch (e) {
    return { ok: false, out: `${e.stdout}${e.stderr}` };
  }
}

// Waits until pred() is true (polling every 50 ms, ms at most); returns its last value.
export async function until(pred, ms = 10000) {
  const end = Date.now() + ms;
  let v = await pred();
  while (!v && Date.now() < end) {
    await sleep(50);
    v = await pred();
  }
  return v;
}
