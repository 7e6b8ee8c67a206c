// codemode_harness.mjs — starts `sluice serve` with a generated config on the demo database
// (stdio or HTTP) and connects the official SDK client; helpers to validate and execute.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { Client, StdioClientTransport, StreamableHTTPClientTransport, freePort, raw, types } from "./harness.mjs";

export const work = process.env.SLUICE_E2E_WORK;
export const sluiceBin = process.env.SLUICE_BIN;
if (!work || !sluiceBin) throw new Error("run through ctest_codemode.sh");

export const API_KEYS = { alice: "alice-key-0123456789abcdef", bob: "bob-key-0123456789abcdef" };

// Writes a config file; overrides replace [code_mode]/[database] keys. database: the whole
// [database] body instead of engine + the demo file (the PostgreSQL tests pass conninfo).
export function writeConfig(name, { engine = "duckdb", serverId = "e2e", ttl = 300, key = "token.key",
                                    autoApprove = ["low", "medium"], maxRows = 1000, timeout = 5,
                                    extra = "", database = null } = {}) {
  const db = engine === "duckdb" ? "demo.duckdb" : "demo.sqlite";
  const databaseBody = database ?? `engine = "${engine}"\npath = "${db}"`;
  const file = path.join(work, `${name}.toml`);
  writeFileSync(file, `
[server]
name = "sluice-e2e"
[identity]
user = "stdio-user"
groups = ["StandardUsers"]
[[api_keys]]
user = "alice"
groups = ["StandardUsers"]
key_env = "SLUICE_E2E_KEY_ALICE"
[[api_keys]]
user = "bob"
groups = ["StandardUsers"]
key_env = "SLUICE_E2E_KEY_BOB"
[database]
${databaseBody}
[code_mode]
enabled = true
server_id = "${serverId}"
token_secret_file = "${key}"
token_ttl_seconds = ${ttl}
auto_approve_levels = ${JSON.stringify(autoApprove)}
execution_timeout_seconds = ${timeout}
sql_max_rows = ${maxRows}
blocked_fields = ["ssn", "email"]
audit_log = "${name}.audit.jsonl"
${extra}
`);
  return file;
}

// Gives each user ({ name: group }) an API key in API_KEYS and in SLUICE_E2E_KEY_<NAME>, and
// returns the [[api_keys]] entries a config names them by.
export function apiKeyUsers(users) {
  let toml = "";
  for (const [user, group] of Object.entries(users)) {
    const envName = `SLUICE_E2E_KEY_${user.toUpperCase()}`;
    API_KEYS[user] = `${user}-key-0123456789abcdef`;
    process.env[envName] = API_KEYS[user];
    toml += `[[api_keys]]\nuser = "${user}"\ngroups = ["${group}"]\nkey_env = "${envName}"\n`;
  }
  return toml;
}

const env = () => ({ ...process.env, SLUICE_E2E_KEY_ALICE: API_KEYS.alice, SLUICE_E2E_KEY_BOB: API_KEYS.bob });

export async function connectStdio(configFile) {
  const transport = new StdioClientTransport({ command: sluiceBin, args: ["serve", "-c", configFile, "--stdio"],
                                               env: env(), stderr: "pipe" });
  const client = new Client({ name: "e2e", version: "1.0.0" }, { capabilities: {} });
  await client.connect(transport);
  return { client, close: () => client.close(), pid: transport.pid };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// args: more `sluice serve` options (e.g. ["--test-clock", FILE]).
export async function startHttp(configFile, { args = [] } = {}) {
  const port = await freePort();
  const proc = spawn(sluiceBin, ["serve", "-c", configFile, "--http", `127.0.0.1:${port}`, ...args],
                     { env: env(), stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  proc.stdout.on("data", (d) => (log += d));
  proc.stderr.on("data", (d) => (log += d));
  for (let i = 0; i < 300; i++) { // 30 s: a server starting its MCP downstreams under load
    if (proc.exitCode !== null) throw new Error(`sluice exited (${proc.exitCode}):\n${log}`);
    try {
      await raw({ port, method: "GET", path: "/" });
      return { url: `http://127.0.0.1:${port}/mcp`, port, proc, log: () => log,
               stop: () => proc.kill("SIGTERM") };
    } catch { await sleep(100); }
  }
  proc.kill();
  throw new Error(`sluice did not listen:\n${log}`);
}

export async function connectHttp(server, user = "alice") {
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    requestInit: { headers: { Authorization: `Bearer ${API_KEYS[user]}` } } });
  const client = new Client({ name: `e2e-${user}`, version: "1.0.0" }, { capabilities: {} });
  await client.connect(transport);
  return { client, close: () => client.close() };
}

// A client that approves every high-risk plan it is asked about (elicitation): the canary runs
// execute whatever validate_code accepts.
export async function connectApproving(server, user = "alice") {
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    requestInit: { headers: { Authorization: `Bearer ${API_KEYS[user]}` } } });
  const client = new Client({ name: "canary", version: "1.0.0" }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(types.ElicitRequestSchema, async () => ({ action: "accept", content: { approve: true } }));
  await client.connect(transport);
  return client;
}

export async function validate(client, code, variables) {
  const args = { code };
  if (variables) args.variables = variables;
  const r = await client.callTool({ name: "validate_code", arguments: args });
  if (r.isError) throw new Error(`validate_code failed: ${JSON.stringify(r.content)}`);
  return r.structuredContent;
}

export async function execute(client, code, token, variables) {
  const args = { code, approval_token: token };
  if (variables) args.variables = variables;
  return client.callTool({ name: "execute_code", arguments: args });
}

export function errorText(result) {
  return result.content.map((c) => c.text ?? "").join("\n");
}

// Validates code that only the time cap can stop, executes it, and checks it was stopped with a
// timeout message within `withinMs` (not left to finish).
export async function assertStoppedByTimeout(client, code, withinMs) {
  const v = await validate(client, code);
  if (!v.valid) throw new Error(`${code} was refused: ${JSON.stringify(v.violations)}`);
  const started = Date.now();
  const r = await execute(client, code, v.approval_token);
  if (!r.isError) throw new Error(`${code} finished instead of being stopped`);
  if (!/execution_timeout_seconds|timeout|stopped/i.test(errorText(r)))
    throw new Error(`${code} failed without a timeout message: ${errorText(r)}`);
  if (Date.now() - started >= withinMs) throw new Error(`${code} ran ${Date.now() - started} ms`);
}

// A hostile code must be refused: valid:false with a message a model can act on, or isError at
// execute; never an ssn in the error text.
export async function assertRefused(client, code) {
  const v = await validate(client, code);
  if (!v.valid) {
    assert.equal(v.approval_token, null);
    const message = v.violations.map((x) => x.message).join(" ");
    assert.ok(message.length > 15, `refusal of ${code} says too little: ${message}`);
    return;
  }
  const r = await execute(client, code, v.approval_token);
  assert.equal(r.isError, true, `executed: ${code}\n${errorText(r).slice(0, 300)}`);
  assert.ok(errorText(r).length > 15, `refusal of ${code} says too little`);
  assert.ok(!/\d{3}-\d{2}-\d{4}/.test(errorText(r)), `an ssn leaked in the error of ${code}`);
}
