// jsmcp_helpers.mjs — what the MCP-composition tests share (mcp_composition.test.mjs and
// mcp_canary.mjs): the head of the gateway's config and an SDK downstream started over
// Streamable HTTP.
import { spawn } from "node:child_process";
import path from "node:path";
import { work } from "../e2e/codemode_harness.mjs";
import { freePort } from "../e2e/harness.mjs";

const here = path.dirname(new URL(import.meta.url).pathname);

// The gateway's config up to its first [[code_mode.mcp_servers]]: alice's API key, the no-op
// OpenAPI database (so JavaScript is the only language and mcp.call the only data), the code
// mode budgets, `blocked` (the blocked-field lines) and the audit log `${work}/${audit}`.
export const gatewayHead = ({ serverId, blocked, audit }) => `
[[api_keys]]
user = "alice"
groups = ["StandardUsers"]
key_env = "SLUICE_E2E_KEY_ALICE"
[database]
engine = "openapi"
path = "${here}/noop_api.json"
[code_mode]
enabled = true
server_id = "${serverId}"
languages = ["javascript"]
token_secret_file = "${work}/token.key"
auto_approve_levels = ["low", "medium"]
execution_timeout_seconds = 20
max_api_calls = 20
${blocked}
audit_log = "${work}/${audit}"
`;

// Starts `node tests/jsmcp/SCRIPT ...args --http PORT` (a downstream that prints a line once it
// listens) and resolves to { child, url } when it does; rejects when it exits first.
export async function startHttpDownstream(script, args = []) {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(here, script), ...args, "--http", String(port)],
                      { stdio: ["ignore", "pipe", "inherit"] });
  await new Promise((res, rej) => {
    child.stdout.once("data", res);
    child.once("exit", (c) => rej(new Error(`the HTTP downstream exited (${c})`)));
  });
  return { child, url: `http://127.0.0.1:${port}/mcp` };
}
