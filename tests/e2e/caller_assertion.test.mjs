// caller_assertion.test.mjs — the caller at an HTTP upstream (issue 24): sluice signs a
// short-lived assertion about the authenticated caller (HS256 JWS: sub, groups, aud = the
// upstream, exp <= the execution timeout) and sends it in caller_assertion_header; the demo
// GraphQL API (examples/graphql/server.mjs) verifies it and authorises per user. Through the
// official SDK client over HTTP with API-key users. Run by ctest_caller_assertion.sh.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { API_KEYS, connectHttp, errorText, execute, sluiceBin, startHttp, validate, work }
  from "./codemode_harness.mjs";
import { freePort } from "./harness.mjs";

const src = process.env.SLUICE_SOURCE_DIR;
const users = { alice: "StandardUsers", bob: "StandardUsers" };
const UPSTREAM_SECRET = "upstream-server-credential-42";
const CALLER_KEY = "caller-assertion-key-0123456789abcdef-0123456789";
const LOG = path.join(work, "caller-assertion.log");
const CODE = "query Names { customers(limit: 2) { id name } }";
const TIMEOUT = 7;

let upstream, port, server;
const clients = {};

function config(name, extra = "") {
  let keys = "";
  for (const [user, group] of Object.entries(users)) {
    API_KEYS[user] = `${user}-key-0123456789abcdef`;
    process.env[`SLUICE_E2E_KEY_${user.toUpperCase()}`] = API_KEYS[user];
    keys += `[[api_keys]]\nuser = "${user}"\ngroups = ["${group}", "team-${user}"]\nkey_env = "SLUICE_E2E_KEY_${user.toUpperCase()}"\n`;
  }
  const file = path.join(work, `${name}.toml`);
  writeFileSync(file, `
[server]
name = "sluice-caller"
${keys}
[database]
engine = "graphql"
endpoint = "http://127.0.0.1:${port}/graphql"
path = "${src}/examples/graphql/schema.graphql"
auth_token_env = "DEMO_GRAPHQL_TOKEN"
caller_assertion_header = "X-Sluice-Caller"
${extra}
[code_mode]
enabled = true
server_id = "sluice-caller"
languages = ["graphql"]
token_secret_file = "token.key"
auto_approve_levels = ["low", "medium"]
execution_timeout_seconds = ${TIMEOUT}
graphql_blocked_fields = ["Customer.ssn", "Customer.email"]
`);
  return file;
}

before(async () => {
  process.env.DEMO_GRAPHQL_TOKEN = UPSTREAM_SECRET;
  process.env.SLUICE_CALLER_KEY = CALLER_KEY;
  port = await freePort();
  rmSync(LOG, { force: true });
  upstream = spawn(process.execPath, [path.join(src, "examples/graphql/server.mjs"), "--db",
                   path.join(work, "demo.duckdb"), "--port", String(port)],
                   { env: { ...process.env, DEMO_GRAPHQL_CALLER_KEY: CALLER_KEY, DEMO_GRAPHQL_DENY_USERS: "bob",
                            DEMO_GRAPHQL_CALLER_AUDIENCE: `http://127.0.0.1:${port}/graphql`,
                            DEMO_GRAPHQL_CALLER_LOG: LOG },
                     stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  await new Promise((resolve, reject) => {
    upstream.stdout.on("data", (d) => { out += d; if (out.includes("listening")) resolve(); });
    upstream.stderr.on("data", (d) => (out += d));
    upstream.on("exit", (c) => reject(new Error(`upstream exited ${c}: ${out}`)));
  });
  server = await startHttp(config("caller-assertion", `caller_assertion_secret_env = "SLUICE_CALLER_KEY"`));
  for (const u of Object.keys(users)) clients[u] = (await connectHttp(server, u)).client;
});

after(async () => {
  for (const c of Object.values(clients)) await c.close();
  server?.stop();
  upstream?.kill("SIGTERM");
});

const lastClaims = () => {
  const lines = readFileSync(LOG, "utf8").trim().split("\n");
  return JSON.parse(lines[lines.length - 1]);
};

test("the upstream verifies alice's assertion and answers; it names her, the upstream and a short life", async () => {
  const v = await validate(clients.alice, CODE);
  assert.equal(v.valid, true, JSON.stringify(v.violations));
  const before = Math.floor(Date.now() / 1000);
  const r = await execute(clients.alice, CODE, v.approval_token);
  assert.ok(!r.isError, errorText(r));
  assert.equal(r.structuredContent.value.customers.length, 2);
  const { claims, authorization } = lastClaims();
  assert.equal(claims.sub, "alice");
  assert.deepEqual(claims.groups, ["StandardUsers", "team-alice"]);
  assert.equal(claims.aud, `http://127.0.0.1:${port}/graphql`);
  assert.equal(claims.iss, "sluice-caller");
  assert.ok(claims.iat >= before - 1 && claims.iat <= before + 5);
  assert.ok(claims.exp - claims.iat <= TIMEOUT, `lives ${claims.exp - claims.iat} s`);
  assert.ok(claims.exp > claims.iat);
  assert.match(claims.jti, /^[0-9a-f]{32}$/);
  // the server's own credential went upstream, never alice's API key
  assert.equal(authorization, `Bearer ${UPSTREAM_SECRET}`);
  assert.ok(!readFileSync(LOG, "utf8").includes(API_KEYS.alice));
});

test("bob runs the same code; the upstream refuses him by the verified claim", async () => {
  const v = await validate(clients.bob, CODE);
  assert.equal(v.valid, true);
  const r = await execute(clients.bob, CODE, v.approval_token);
  assert.equal(r.isError, true);
  assert.match(errorText(r), /403/);
  assert.equal(lastClaims().claims.sub, "bob");
});

test("each execution gets a fresh assertion (new jti)", async () => {
  const jtis = new Set();
  for (let i = 0; i < 2; i++) {
    const v = await validate(clients.alice, CODE);
    const r = await execute(clients.alice, CODE, v.approval_token);
    assert.ok(!r.isError, errorText(r));
    jtis.add(lastClaims().claims.jti);
  }
  assert.equal(jtis.size, 2);
});

test("without the assertion, or with a forged one, the upstream refuses", async () => {
  const url = `http://127.0.0.1:${port}/graphql`;
  const body = JSON.stringify({ query: CODE });
  const headers = { "content-type": "application/json", authorization: `Bearer ${UPSTREAM_SECRET}` };
  assert.equal((await fetch(url, { method: "POST", headers, body })).status, 401);
  const forged = ["eyJhbGciOiJIUzI1NiJ9", Buffer.from(JSON.stringify({ sub: "alice", aud: url, exp: 9e9 })).toString("base64url"), "AAAA"].join(".");
  assert.equal((await fetch(url, { method: "POST", headers: { ...headers, "x-sluice-caller": forged }, body })).status, 401);
  const none = ["eyJhbGciOiJub25lIn0", Buffer.from(JSON.stringify({ sub: "alice", aud: url, exp: 9e9 })).toString("base64url"), ""].join(".");
  assert.equal((await fetch(url, { method: "POST", headers: { ...headers, "x-sluice-caller": none }, body })).status, 401);
});

test("a key of the wrong upstream is refused by it (wrong signature)", async () => {
  process.env.SLUICE_OTHER_KEY = "another-upstreams-key-0123456789abcdef-012345";
  const other = await startHttp(config("caller-assertion-other", `caller_assertion_secret_env = "SLUICE_OTHER_KEY"`));
  const { client, close } = await connectHttp(other, "alice");
  try {
    const v = await validate(client, CODE);
    const r = await execute(client, CODE, v.approval_token);
    assert.equal(r.isError, true);
    assert.match(errorText(r), /401/);
  } finally {
    await close();
    other.stop();
  }
});

test("an audience for another upstream is refused by this one", async () => {
  const other = await startHttp(config("caller-assertion-aud",
    `caller_assertion_secret_env = "SLUICE_CALLER_KEY"\ncaller_assertion_audience = "https://other.example/graphql"`));
  const { client, close } = await connectHttp(other, "alice");
  try {
    const v = await validate(client, CODE);
    const r = await execute(client, CODE, v.approval_token);
    assert.equal(r.isError, true);
    assert.match(errorText(r), /401/);
  } finally {
    await close();
    other.stop();
  }
});

// Configurations that would weaken it are refused before anything starts.
for (const [name, extra, message] of [
  ["short key", `caller_assertion_secret_env = "SLUICE_SHORT_KEY"`, /at least 32/],
  ["no key", ``, /exactly one of caller_assertion_secret_env and caller_assertion_secret_file/],
  ["the credential's header", `caller_assertion_secret_env = "SLUICE_CALLER_KEY"\nauth_header = "X-Sluice-Caller"`, /header of the server credential/],
]) {
  test(`sluice refuses to start: ${name}`, () => {
    process.env.SLUICE_SHORT_KEY = "too-short";
    const file = config(`caller-assertion-bad-${name.replace(/\W/g, "")}`, extra);
    // config check runs every start-up check serve runs (the key is read and measured too)
    const r = spawnSync(sluiceBin, ["config", "check", file], { encoding: "utf8", env: process.env });
    assert.equal(r.status, 1, r.stdout);
    assert.match(r.stderr + r.stdout, message);
  });
}

test("the key never appears in sluice's log", () => {
  assert.ok(existsSync(LOG));
  assert.ok(!server.log().includes(CALLER_KEY));
});
