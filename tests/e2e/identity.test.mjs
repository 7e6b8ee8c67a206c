// identity.test.mjs — who the caller is, proven by OAuth bearer JWTs that this test mints with
// node:crypto (RS256 and ES256 keys made at start, JWKS file written), checked through the SDK's
// own auth helpers and raw HTTP; and human approval above the auto-approve level, by elicitation
// and by an administrator (`sluice approve` and POST /admin/approvals/<id>).
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { createHash, createHmac, createSign, generateKeyPairSync } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { Client, StreamableHTTPClientTransport, freePort, raw, types } from "./harness.mjs";

const require = createRequire(new URL("../node/package.json", import.meta.url));
const { extractWWWAuthenticateParams, discoverOAuthProtectedResourceMetadata } = require(
  "@modelcontextprotocol/sdk/client/auth.js");

const work = process.env.SLUICE_E2E_WORK;
const sluiceBin = process.env.SLUICE_BIN;
if (!work || !sluiceBin) throw new Error("run through ctest_identity.sh");

const ISSUER = "https://as.example.test";
const ADMIN_KEY = "admin-key-0123456789abcdef-0123456789";
const b64u = (b) => Buffer.from(b).toString("base64url");
const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
const ec = generateKeyPairSync("ec", { namedCurve: "P-256" });
const stranger = generateKeyPairSync("rsa", { modulusLength: 2048 });
const jwk = (kp, kid, alg) => ({ ...kp.publicKey.export({ format: "jwk" }), kid, alg, use: "sig" });

let port, resource, proc, log = "";
const auditFile = () => path.join(work, "identity.audit.jsonl");

function mint(claims = {}, { alg = "RS256", kid, key, header = {} } = {}) {
  const now = Math.floor(Date.now() / 1000);
  const body = { iss: ISSUER, aud: resource, sub: "alice", groups: ["analysts", "ops"],
                 iat: now, exp: now + 600, ...claims };
  for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k];
  const h = { alg, typ: "JWT", kid: kid ?? (alg === "ES256" ? "ec-1" : "rsa-1"), ...header };
  const input = `${b64u(JSON.stringify(h))}.${b64u(JSON.stringify(body))}`;
  let sig = "";
  if (alg === "RS256" || alg === "ES256")
    sig = b64u(createSign("SHA256").update(input).sign({
      key: key ?? (alg === "ES256" ? ec.privateKey : rsa.privateKey), dsaEncoding: "ieee-p1363" }));
  else if (alg === "HS256") sig = b64u(createHmac("sha256", key).update(input).digest());
  return `${input}.${sig}`;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

before(async () => {
  port = await freePort();
  resource = `http://127.0.0.1:${port}/mcp`;
  writeFileSync(path.join(work, "jwks.json"),
                JSON.stringify({ keys: [jwk(rsa, "rsa-1", "RS256"), jwk(ec, "ec-1", "ES256")] }));
  const config = path.join(work, "identity.toml");
  writeFileSync(config, `
[server]
name = "sluice-identity"
[auth]
jwks_file = "jwks.json"
issuer = "${ISSUER}"
authorization_servers = ["${ISSUER}"]
scopes_supported = ["mcp"]
resource_url = "${resource}"
clock_skew_seconds = 5
[admin]
key_sha256 = "${createHash("sha256").update(ADMIN_KEY).digest("hex")}"
[database]
path = "demo.duckdb"
[code_mode]
enabled = true
token_secret_file = "token.key"
auto_approve_levels = ["low"]
sql_allow_writes = true
audit_log = "identity.audit.jsonl"
`);
  proc = spawn(sluiceBin, ["serve", "-c", config, "--http", `127.0.0.1:${port}`],
               { stdio: ["ignore", "pipe", "pipe"] });
  proc.stdout.on("data", (d) => (log += d));
  proc.stderr.on("data", (d) => (log += d));
  for (let i = 0; i < 100; i++) {
    if (proc.exitCode !== null) throw new Error(`sluice exited (${proc.exitCode}):\n${log}`);
    try { await raw({ port, method: "GET", path: "/" }); return; } catch { await sleep(100); }
  }
  throw new Error(`sluice did not listen:\n${log}`);
});

after(() => {
  writeFileSync(path.join(work, "server.log"), log);
  if (proc && proc.exitCode === null) proc.kill("SIGTERM");
});

async function connect(token, { elicit } = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(resource), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  const client = new Client({ name: "e2e-identity", version: "1.0.0" },
                            { capabilities: elicit ? { elicitation: {} } : {} });
  if (elicit) client.setRequestHandler(types.ElicitRequestSchema, elicit);
  await client.connect(transport);
  return client;
}

const initBody = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {
  protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });

function post(token) {
  const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
  if (token !== undefined) headers.Authorization = `Bearer ${token}`;
  return fetch(resource, { method: "POST", headers, body: initBody });
}

const auditRecords = () => readFileSync(auditFile(), "utf8").trim().split("\n").map((l) => JSON.parse(l));

describe("bearer JWTs", () => {
  test("the metadata is served at both well-known paths", async () => {
    const prm = await discoverOAuthProtectedResourceMetadata(resource);
    assert.equal(prm.resource, resource);
    assert.deepEqual(prm.authorization_servers, [ISSUER]);
    assert.deepEqual(prm.bearer_methods_supported, ["header"]);
    assert.deepEqual(prm.scopes_supported, ["mcp"]);
    for (const p of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]) {
      const res = await raw({ port, method: "GET", path: p });
      assert.equal(res.status, 200, p);
      assert.equal(JSON.parse(res.body).resource, resource);
    }
    assert.equal((await raw({ port, method: "GET", path: "/.well-known/oauth-protected-resource/x" })).status, 404);
  });

  test("a missing token gets 401 pointing at the metadata, without an error code", async () => {
    const res = await post(undefined);
    assert.equal(res.status, 401);
    const p = extractWWWAuthenticateParams(res);
    assert.equal(p.resourceMetadataUrl?.href,
                 `http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`);
    assert.equal(p.error, undefined);
  });

  const now = () => Math.floor(Date.now() / 1000);
  const bad = {
    expired: () => mint({ exp: now() - 60 }),
    "not yet valid": () => mint({ nbf: now() + 120 }),
    "wrong audience": () => mint({ aud: "https://other.example/mcp" }),
    "wrong issuer": () => mint({ iss: "https://evil.example" }),
    "wrongly signed": () => mint({}, { key: stranger.privateKey }),
    "alg none": () => mint({}, { alg: "none" }),
    "HS256 keyed with the public key": () =>
      mint({}, { alg: "HS256", key: rsa.publicKey.export({ format: "pem", type: "spki" }) }),
    "unknown kid": () => mint({}, { kid: "rsa-2" }),
    "ES256 signed by the RSA kid": () => mint({}, { alg: "ES256", kid: "rsa-1" }),
  };
  for (const [name, make] of Object.entries(bad)) {
    test(`${name}: 401 invalid_token with the metadata URL`, async () => {
      const res = await post(make());
      assert.equal(res.status, 401, name);
      const p = extractWWWAuthenticateParams(res);
      assert.equal(p.error, "invalid_token", name);
      assert.equal(p.resourceMetadataUrl?.pathname, "/.well-known/oauth-protected-resource/mcp");
      assert.match(res.headers.get("www-authenticate"), /error_description="[^"]+"/);
    });
  }

  test("RS256 and ES256 tokens work, and user and groups reach the audit log", async () => {
    for (const [alg, sub] of [["RS256", "alice"], ["ES256", "erin"]]) {
      const client = await connect(mint({ sub, groups: "readers writers" }, { alg }));
      const r = await client.callTool({ name: "validate_code",
                                        arguments: { code: "SELECT 1 AS one" } });
      assert.equal(r.isError, undefined, JSON.stringify(r.content));
      await client.close();
      const last = auditRecords().filter((x) => x.event === "validate").at(-1);
      assert.equal(last.user, sub);
      assert.equal(last.auth, "jwt");
      assert.deepEqual(last.groups, ["readers", "writers"]);
    }
    assert.ok(!log.includes("eyJ"), "no token in the server log");
    assert.ok(!readFileSync(auditFile(), "utf8").includes("eyJ"), "no token in the audit log");
  });

  test("what alice's token got cannot be used by bob", async () => {
    const alice = await connect(mint({ sub: "alice" }));
    const v = (await alice.callTool({ name: "validate_code",
                                      arguments: { code: "SELECT 1 AS one" } })).structuredContent;
    const bob = await connect(mint({ sub: "bob" }));
    const r = await bob.callTool({ name: "execute_code",
                                   arguments: { code: "SELECT 1 AS one", approval_token: v.approval_token } });
    assert.equal(r.isError, true);
    // Alice's session is not bob's either.
    const sid = alice.transport.sessionId;
    const res = await fetch(resource, { method: "POST", headers: {
      "Content-Type": "application/json", Accept: "application/json, text/event-stream",
      Authorization: `Bearer ${mint({ sub: "bob" })}`, "Mcp-Session-Id": sid,
      "MCP-Protocol-Version": "2025-11-25" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }) });
    assert.ok(res.status >= 400 && res.status < 500, `status ${res.status}`);
    await alice.close();
    await bob.close();
  });
});

describe("approval above the auto-approve level", () => {
  const WRITE = "UPDATE customers SET name = name WHERE id = 1";
  const configFile = () => path.join(work, "identity.toml");
  const text = (r) => r.content.map((c) => c.text ?? "").join("\n");
  const executedIds = () => auditRecords().filter((x) => x.decision === "executed").map((x) => x.token_id);

  async function pending(client) {
    const v = (await client.callTool({ name: "validate_code", arguments: { code: WRITE } })).structuredContent;
    assert.equal(v.valid, true, JSON.stringify(v));
    assert.equal(v.risk_level, "high");
    const r = await client.callTool({ name: "execute_code",
                                      arguments: { code: WRITE, approval_token: v.approval_token } });
    assert.equal(r.isError, true);
    const m = text(r).match(/sluice approve ([0-9a-f]{32})/);
    assert.ok(m, text(r));
    return { token: v.approval_token, id: m[1] };
  }
  const run = (client, token) =>
    client.callTool({ name: "execute_code", arguments: { code: WRITE, approval_token: token } });

  const adminPost = (id, body, key = ADMIN_KEY) =>
    fetch(`http://127.0.0.1:${port}/admin/approvals/${id}`, { method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${key}` },
      body: JSON.stringify(body) });

  test("runs after the user accepts the elicitation, not after a decline", async () => {
    let asked = 0;
    const yes = await connect(mint({ sub: "alice" }), { elicit: async () => {
      asked++; return { action: "accept", content: { approve: true } }; } });
    const v1 = (await yes.callTool({ name: "validate_code", arguments: { code: WRITE } })).structuredContent;
    const r1 = await run(yes, v1.approval_token);
    assert.ok(!r1.isError, text(r1));
    assert.equal(asked, 1);
    const no = await connect(mint({ sub: "alice" }), { elicit: async () => ({ action: "decline" }) });
    const v2 = (await no.callTool({ name: "validate_code", arguments: { code: WRITE } })).structuredContent;
    const r2 = await run(no, v2.approval_token);
    assert.equal(r2.isError, true);
    assert.match(text(r2), /did not approve/);
    const ids = auditRecords().filter((x) => x.decision === "executed").length;
    assert.equal(ids, 1, "only the accepted statement ran");
    await yes.close();
    await no.close();
  });

  test("`sluice approve` lets the recorded request run once", async () => {
    const client = await connect(mint({ sub: "alice" }));
    const { token, id } = await pending(client);
    // Still pending: asking again is refused again.
    assert.equal((await run(client, token)).isError, true);
    const list = spawnSync(sluiceBin, ["approve", "-c", configFile(), "--list"], { encoding: "utf8" });
    assert.equal(list.status, 0, list.stderr);
    assert.match(list.stdout, new RegExp(`${id}  alice  expires \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ  write statement, high risk`));
    const cli = spawnSync(sluiceBin, ["approve", "-c", configFile(), id, "--as", "root-admin"],
                          { encoding: "utf8" });
    assert.equal(cli.status, 0, cli.stderr);
    assert.match(cli.stdout, /approved by root-admin/);
    const again = spawnSync(sluiceBin, ["approve", "-c", configFile(), id, "--reject"], { encoding: "utf8" });
    assert.equal(again.status, 1, "a decided request cannot be decided again");
    const r = await run(client, token);
    assert.ok(!r.isError, text(r));
    assert.equal((await run(client, token)).isError, true, "once");
    const records = auditRecords();
    assert.ok(records.some((x) => x.event === "approval_decision" && x.approval_id === id &&
                                  x.decision === "approved" && x.user === "root-admin"));
    assert.equal(executedIds().filter((t) => t === id).length, 1);
    await client.close();
  });

  test("the admin endpoint needs its own key; a rejection is final", async () => {
    const client = await connect(mint({ sub: "bob" }));
    const { token, id } = await pending(client);
    assert.equal((await adminPost(id, { decision: "approve" }, "wrong-key-0123456789")).status, 401);
    assert.equal((await adminPost(id, { decision: "approve" }, mint({ sub: "bob" }))).status, 401);
    assert.equal((await adminPost(id, { decision: "maybe" })).status, 400);
    assert.equal((await adminPost("0".repeat(32), { decision: "approve" })).status, 404);
    const res = await adminPost(id, { decision: "reject", as: "carol" });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { id, state: "rejected", decided_by: "carol" });
    const r = await run(client, token);
    assert.equal(r.isError, true);
    assert.match(text(r), /rejected/);
    assert.equal((await adminPost(id, { decision: "approve" })).status, 409, "never revived");
    assert.equal((await run(client, token)).isError, true);
    assert.equal(executedIds().filter((t) => t === id).length, 0);
    assert.ok(auditRecords().some((x) => x.event === "approval_decision" && x.approval_id === id &&
                                         x.decision === "rejected" && x.user === "carol"));
    await client.close();
  });

  test("an approval over HTTP runs once, and only for the caller it was made for", async () => {
    const client = await connect(mint({ sub: "alice" }));
    const { token, id } = await pending(client);
    assert.equal((await adminPost(id, { decision: "approve" })).status, 200);
    const mallory = await connect(mint({ sub: "mallory" }));
    assert.equal((await run(mallory, token)).isError, true);
    const r = await run(client, token);
    assert.ok(!r.isError, text(r));
    assert.equal((await run(client, token)).isError, true);
    assert.equal(executedIds().filter((t) => t === id).length, 1);
    await client.close();
    await mallory.close();
  });
});

// MCP 2026-07-28 on the same endpoint: no session, the principal from each request's bearer JWT,
// and the approval through an input_required result whose requestState the server sealed. Each
// test tries to get a high-risk write run without the user's acceptance.
describe("approval under MCP 2026-07-28 (stateless, input_required)", () => {
  const WRITE = "UPDATE customers SET name = name WHERE id = 2";
  const V = "2026-07-28";
  let rpcId = 1000;
  const executed = () => auditRecords().filter((x) => x.decision === "executed").length;

  async function rpc(token, method, params, { name, caps = { elicitation: {} }, headers = {} } = {}) {
    const h = { "Content-Type": "application/json", Accept: "application/json, text/event-stream",
                Authorization: `Bearer ${token}`, "MCP-Protocol-Version": V, "Mcp-Method": method,
                ...headers };
    if (name !== undefined) h["Mcp-Name"] = name;
    const body = { jsonrpc: "2.0", id: ++rpcId, method, params: { ...params, _meta: {
      "io.modelcontextprotocol/protocolVersion": V,
      "io.modelcontextprotocol/clientCapabilities": caps } } };
    const r = await fetch(resource, { method: "POST", headers: h, body: JSON.stringify(body) });
    return { status: r.status, session: r.headers.get("mcp-session-id"), body: await r.json() };
  }
  const tool = (token, name, args, extra = {}, opts = {}) =>
    rpc(token, "tools/call", { name, arguments: args, ...extra }, { name, ...opts });

  async function validated(token) {
    const v = await tool(token, "validate_code", { code: WRITE });
    assert.equal(v.status, 200);
    assert.equal(v.session, null, "2026-07-28 mints no session");
    assert.equal(v.body.result.resultType, "complete");
    const s = v.body.result.structuredContent;
    assert.equal(s.requires_approval, true, JSON.stringify(s));
    return s.approval_token;
  }

  async function asked(token, approval_token) {
    const r = await tool(token, "execute_code", { code: WRITE, approval_token });
    assert.equal(r.status, 200);
    const res = r.body.result;
    assert.equal(res.resultType, "input_required", JSON.stringify(r.body));
    assert.equal(res.inputRequests.approval.method, "elicitation/create");
    assert.match(res.inputRequests.approval.params.message, /Approve running this write/);
    assert.equal(typeof res.requestState, "string");
    return res.requestState;
  }

  const accept = { approval: { action: "accept", content: { approve: true } } };

  test("runs once after the user's acceptance comes back with the sealed state", async () => {
    const alice = mint({ sub: "alice" });
    const approval_token = await validated(alice);
    const before = executed();
    const state = await asked(alice, approval_token);
    assert.equal(executed(), before, "asking ran nothing");
    const ok = await tool(alice, "execute_code", { code: WRITE, approval_token },
                          { inputResponses: accept, requestState: state });
    assert.equal(ok.body.result.resultType, "complete", JSON.stringify(ok.body));
    assert.ok(!ok.body.result.isError, JSON.stringify(ok.body));
    assert.equal(executed(), before + 1);
    const replay = await tool(alice, "execute_code", { code: WRITE, approval_token },
                              { inputResponses: accept, requestState: state });
    assert.ok(replay.body.error || replay.body.result.isError, "a replay does not run");
    assert.equal(executed(), before + 1);
  });

  test("a tampered, a foreign or a missing state never runs", async () => {
    const alice = mint({ sub: "alice" });
    const approval_token = await validated(alice);
    const state = await asked(alice, approval_token);
    const before = executed();
    const flip = state.slice(0, -3) + (state.at(-3) === "A" ? "B" : "A") + state.slice(-2);
    for (const bad of [state + "-TAMPERED", flip, "k1.AAAA", ""]) {
      const r = await tool(alice, "execute_code", { code: WRITE, approval_token },
                           { inputResponses: accept, requestState: bad });
      assert.equal(r.body.error?.code, -32602, `${bad}: ${JSON.stringify(r.body)}`);
    }
    // A state sealed for another approval token of the same user.
    const other = await validated(alice);
    const r = await tool(alice, "execute_code", { code: WRITE, approval_token: other },
                         { inputResponses: accept, requestState: state });
    assert.equal(r.body.error?.code, -32602, JSON.stringify(r.body));
    assert.match(r.body.error.message, /another approval token/);
    // An acceptance without any state is a first call: it is asked, not run.
    const none = await tool(alice, "execute_code", { code: WRITE, approval_token },
                            { inputResponses: accept });
    assert.equal(none.body.result.resultType, "input_required");
    assert.equal(executed(), before, "nothing ran");
    // The genuine state still works once after all that.
    const ok = await tool(alice, "execute_code", { code: WRITE, approval_token },
                          { inputResponses: accept, requestState: state });
    assert.ok(!ok.body.result.isError, JSON.stringify(ok.body));
    assert.equal(executed(), before + 1);
  });

  test("a decline, or a client without elicitation, does not run", async () => {
    const alice = mint({ sub: "alice" });
    const approval_token = await validated(alice);
    const state = await asked(alice, approval_token);
    const before = executed();
    const no = await tool(alice, "execute_code", { code: WRITE, approval_token },
                          { inputResponses: { approval: { action: "decline" } }, requestState: state });
    assert.equal(no.body.result.isError, true);
    assert.match(no.body.result.content[0].text, /did not approve/);
    const blind = await tool(alice, "execute_code", { code: WRITE, approval_token: await validated(alice) },
                             {}, { caps: {} });
    assert.equal(blind.body.result.isError, true, JSON.stringify(blind.body));
    assert.equal(executed(), before);
  });

  test("a header that disagrees with the body is -32020, and the old session is not needed", async () => {
    const alice = mint({ sub: "alice" });
    const r = await tool(alice, "execute_code", { code: WRITE, approval_token: "x" }, {},
                         { name: "validate_code" });
    assert.equal(r.status, 400);
    assert.equal(r.body.error.code, -32020);
    const m = await rpc(alice, "tools/list", {}, { headers: { "Mcp-Method": "prompts/list" } });
    assert.equal(m.status, 400);
    assert.equal(m.body.error.code, -32020);
    const d = await rpc(alice, "server/discover", {});
    assert.deepEqual(d.body.result.supportedVersions.slice(0, 2), ["2026-07-28", "2025-11-25"]);
    const gone = await rpc(alice, "ping", {});
    assert.equal(gone.status, 404);
    assert.equal(gone.body.error.code, -32601);
    const anon = await fetch(resource, { method: "POST", headers: { "Content-Type": "application/json",
      Accept: "application/json", "MCP-Protocol-Version": V, "Mcp-Method": "tools/list" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list", params: { _meta: {
        "io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": {} } } }) });
    assert.equal(anon.status, 401, "every stateless request is authenticated on its own");
  });
});
