// first_call.mjs — what the lazy engine open (docs/architecture.md, "Start-up and idle memory")
// moves from start-up to the first call: through the official SDK over stdio, the time from
// spawn to `initialize` answered, `tools/list`, the first validate_code and a second one of
// another statement (so the analysis cache cannot answer it). Prints one JSON line per run.
//
//   node bench/startup/first_call.mjs --sluice BIN --work DIR [--runs N]
// DIR holds demo.duckdb and token.key (`sluice demo-db`, `sluice keygen`).
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { parseArgs } from "node:util";

const require = createRequire(new URL("../../tests/node/package.json", import.meta.url));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");

const { values: opt } = parseArgs({ options: {
  sluice: { type: "string" }, work: { type: "string" }, runs: { type: "string", default: "5" } } });
if (!opt.sluice || !opt.work) {
  process.stderr.write("usage: first_call.mjs --sluice BIN --work DIR [--runs N]\n");
  process.exit(2);
}
const config = path.join(opt.work, "first-call.toml");
writeFileSync(config, `[server]
name = "first-call"
[database]
engine = "duckdb"
path = "demo.duckdb"
threads = 2
[code_mode]
enabled = true
token_secret_file = "token.key"
auto_approve_levels = ["low", "medium"]
`);

async function validate(client, code) {
  const r = await client.callTool({ name: "validate_code", arguments: { code } });
  if (r.isError) throw new Error(JSON.stringify(r.content));
}

for (let run = 0; run < Number(opt.runs); run++) {
  const t0 = performance.now();
  const transport = new StdioClientTransport({ command: opt.sluice, args: ["serve", "-c", config, "--stdio"],
                                               stderr: "ignore", cwd: opt.work });
  const client = new Client({ name: "first-call", version: "1.0.0" }, { capabilities: {} });
  await client.connect(transport);
  const t1 = performance.now();
  await client.listTools();
  const t2 = performance.now();
  await validate(client, "SELECT plan, count(*) FROM customers GROUP BY plan");
  const t3 = performance.now();
  await validate(client, "SELECT status, count(*) FROM orders GROUP BY status");
  const t4 = performance.now();
  const ms = (v) => Number(v.toFixed(1));
  console.log(JSON.stringify({ start_ms: ms(t1 - t0), list_ms: ms(t2 - t1), first_validate_ms: ms(t3 - t2),
                               second_validate_ms: ms(t4 - t3) }));
  await client.close();
}
