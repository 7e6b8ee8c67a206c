// pipeline.mjs — the real pipeline for the property: `sluice serve --stdio` on a canary database,
// driven by the official MCP SDK client.
//
// Owns: writing the property's config (every risk level auto-approved so accepted code runs, a
// small row cap, debug logging so every log line the server can write is scanned), starting the
// server, validate_code then execute_code for one statement, and collecting the server's stderr.
// Does not own: judging anything (run.mjs), the canaries (canary.mjs).
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(new URL("../node/package.json", import.meta.url));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");

export const MAX_ROWS = 200;

// database: the [database] body; by default the DuckDB file db (PostgreSQL: engine and conninfo).
// codeMode: more [code_mode] lines (GraphQL: languages, graphql_blocked_fields).
export function writeConfig(dir, name, db, keyFile, blocked, database = null, codeMode = "") {
  const file = path.join(dir, `${name}.toml`);
  const body = database ?? `engine = "duckdb"\npath = "${db}"\nmemory_limit = "256MB"\nthreads = 1`;
  writeFileSync(file, `
[server]
name = "sluice-property"
log_level = "debug"
[identity]
user = "property-user"
groups = ["StandardUsers"]
[database]
${body}
[code_mode]
enabled = true
server_id = "property"
token_secret_file = "${keyFile}"
token_ttl_seconds = 3600
auto_approve_levels = ["low", "medium", "high", "critical"]
execution_timeout_seconds = 3
analysis_timeout_ms = 2000
sql_max_rows = ${MAX_ROWS}
sql_max_joins = 8
blocked_fields = ${JSON.stringify(blocked)}
audit_log = "${name}.audit.jsonl"
${codeMode}`);
  return file;
}

export class Server {
  constructor(bin, configFile) {
    this.bin = bin;
    this.configFile = configFile;
    this.stderr = "";
  }

  async start() {
    this.transport = new StdioClientTransport({ command: this.bin, args: ["serve", "-c", this.configFile, "--stdio"],
                                                stderr: "pipe", cwd: path.dirname(this.configFile) });
    this.client = new Client({ name: "property", version: "1.0.0" }, { capabilities: {} });
    const started = this.client.connect(this.transport);
    this.transport.stderr.on("data", (d) => (this.stderr += d));
    await started;
  }

  // Returns and forgets what the server wrote to stderr since the last call.
  takeStderr() {
    const s = this.stderr;
    this.stderr = "";
    return s;
  }

  // validate_code, then execute_code when the code is valid. Never throws for a refusal: a
  // transport or protocol failure is reported as {crash}.
  async run(code, variables = null) {
    const out = { code };
    const vars = variables ? { variables } : {};
    try {
      const v = await this.client.callTool({ name: "validate_code", arguments: { code, ...vars } }, undefined, { timeout: 30000 });
      out.validate = v;
      const s = v.structuredContent;
      if (v.isError || !s || !s.valid || !s.approval_token) return out;
      out.execute = await this.client.callTool({ name: "execute_code", arguments: { code, approval_token: s.approval_token, ...vars } },
                                               undefined, { timeout: 30000 });
    } catch (e) {
      out.crash = String(e?.message ?? e);
    }
    return out;
  }

  async close() {
    try { await this.client.close(); } catch { /* already gone */ }
  }
}

// The result values of one run: what the program returned (rows, a plan's value, its failed
// calls, column names: PIVOT makes names of values) and the error its execution raised. The only
// texts the checker decodes (canary.mjs scanEncoded); the envelope around them (elapsed_ms,
// counts, the fence tag, tokens, ids) is sluice's own, scanned for the plain forms only.
export function resultTexts(r) {
  const e = r.execute;
  if (!e) return [];
  const s = e.structuredContent ?? {};
  const out = [];
  for (const k of ["rows", "value", "failed_calls"]) if (s[k] !== undefined) out.push(JSON.stringify(s[k]));
  if (Array.isArray(s.columns)) out.push(JSON.stringify(s.columns.map((c) => c?.name ?? null)));
  if (e.isError) out.push((e.content ?? []).map((c) => c.text ?? "").join("\n"));
  return out;
}

// The result value an audit line records: the execution's error (an upstream's message can
// spell a value in pieces); the rest of the line is sluice's own (times, hashes, ids).
export function auditResultTexts(line) {
  try {
    const e = JSON.parse(line).error;
    return typeof e === "string" ? [e] : [];
  } catch { return []; }
}

// The verdict of one run: accepted (valid), executed (ran without error), the rules that refused.
export function verdict(r) {
  const s = r.validate?.structuredContent;
  const rules = (s?.violations ?? []).map((v) => v.rule);
  return {
    accepted: Boolean(s?.valid),
    executed: Boolean(r.execute && !r.execute.isError),
    execError: r.execute?.isError ? (r.execute.content ?? []).map((c) => c.text ?? "").join("\n") : null,
    rules,
    messages: (s?.violations ?? []).map((v) => v.message),
  };
}
