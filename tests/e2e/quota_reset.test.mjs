// quota_reset.test.mjs — a per-minute quota reached and reset end to end (issue 24, item 3),
// through the official SDK client, on `sluice serve --test-clock FILE`: the server's wall clock
// is what FILE says, so the test ends the minute by rewriting FILE, never by sleeping. The
// refusal names the quota and its reset time (text for the model, _meta "io.sluice/quota" for the
// client); 1 ms before the reset the call is still refused, at the reset the same approval token
// (left unspent by the refusal) runs. The same refusal to a MCP 2026-07-28 request (stateless,
// no SDK for that revision on this machine: raw requests, the result checked with the SDK's own
// CallToolResult schema). And the clock file's checks: a file others may write, one that is not a
// time, or a missing one is refused at start, naming the file.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, writeFileSync } from "node:fs";
import path from "node:path";
import { writeConfig, startHttp, connectHttp, validate, execute, errorText, work, sluiceBin, API_KEYS }
  from "./codemode_harness.mjs";
import { types } from "./harness.mjs";

const clockFile = path.join(work, "clock.ms");
const setClock = (ms) => writeFileSync(clockFile, `${ms}\n`, { mode: 0o600 });
// 2026-12-06T12:00:30Z: half way through a minute, so the reset is 30 s away
const T0 = Date.UTC(2026, 11, 6, 12, 0, 30);
const quotaMeta = (r) => r._meta?.["io.sluice/quota"];
const servers = [];
after(() => { for (const s of servers) s.stop(); });

function config(name) {
  return writeConfig(name, { extra: `
[quotas]
execute_per_minute = 2
` });
}

test("a per-minute quota is refused with its reset time, and runs again once the clock passes it", async () => {
  setClock(T0);
  const server = await startHttp(config("quota-reset"), { args: ["--test-clock", clockFile] });
  servers.push(server);
  assert.match(server.log(), /TEST CLOCK: the wall time is what .*clock\.ms says/);
  const alice = await connectHttp(server, "alice");
  try {
    const sql = "SELECT name FROM customers ORDER BY id LIMIT 2";
    const tokens = [];
    for (let i = 0; i < 3; i++) tokens.push((await validate(alice.client, sql)).approval_token);
    for (let i = 0; i < 2; i++) {
      const ok = await execute(alice.client, sql, tokens[i]);
      assert.equal(ok.isError, undefined, errorText(ok));
    }
    const refused = await execute(alice.client, sql, tokens[2]);
    assert.equal(refused.isError, true);
    assert.match(errorText(refused), /quota execute_per_minute reached for 'alice' on route '[^']+': 2 of 2 execute_code calls this minute; it resets at 2026-12-06T12:01:00Z \(in 30 s\)\. Nothing was run\./);
    assert.deepEqual({ ...quotaMeta(refused), route: "-" },
                     { type: "quota_exceeded", quota: "execute_per_minute", route: "-", limit: 2, used: 2,
                       resets_at: "2026-12-06T12:01:00Z", retry_after_seconds: 30 });

    // 1 ms before the minute ends: still refused (and the token still unspent)
    setClock(T0 + 29999);
    const early = await execute(alice.client, sql, tokens[2]);
    assert.equal(early.isError, true);
    assert.match(errorText(early), /2 of 2 execute_code calls this minute; it resets at 2026-12-06T12:01:00Z \(in 1 s\)/);

    // the minute has ended: the refused call runs, with the same approval token
    setClock(T0 + 30000);
    const again = await execute(alice.client, sql, tokens[2]);
    assert.equal(again.isError, undefined, errorText(again));
    assert.equal(again.structuredContent.row_count, 2);
    // and the new minute's quota counts from there: one more, then refused until 12:02
    const t4 = (await validate(alice.client, sql)).approval_token;
    const t5 = (await validate(alice.client, sql)).approval_token;
    assert.equal((await execute(alice.client, sql, t4)).isError, undefined);
    const next = await execute(alice.client, sql, t5);
    assert.equal(next.isError, true);
    assert.equal(quotaMeta(next).resets_at, "2026-12-06T12:02:00Z");
    assert.equal(quotaMeta(next).retry_after_seconds, 60);
  } finally {
    await alice.close();
  }
});

test("MCP 2026-07-28: the quota refusal is a complete tool error with the reset time", async () => {
  setClock(T0);
  const server = await startHttp(config("quota-reset-2026"), { args: ["--test-clock", clockFile] });
  servers.push(server);
  const V = "2026-07-28";
  let id = 0;
  async function call(name, args) {
    const r = await fetch(server.url, { method: "POST", body: JSON.stringify({
      jsonrpc: "2.0", id: ++id, method: "tools/call", params: { name, arguments: args, _meta: {
        "io.modelcontextprotocol/protocolVersion": V, "io.modelcontextprotocol/clientCapabilities": {} } } }),
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream",
                 Authorization: `Bearer ${API_KEYS.bob}`, "MCP-Protocol-Version": V,
                 "Mcp-Method": "tools/call", "Mcp-Name": name } });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("mcp-session-id"), null, "2026-07-28 mints no session");
    return (await r.json()).result;
  }
  const sql = "SELECT name FROM customers ORDER BY id LIMIT 2";
  const tokens = [];
  for (let i = 0; i < 3; i++) tokens.push((await call("validate_code", { code: sql })).structuredContent.approval_token);
  for (let i = 0; i < 2; i++) assert.equal((await call("execute_code", { code: sql, approval_token: tokens[i] })).isError, undefined);
  const refused = await call("execute_code", { code: sql, approval_token: tokens[2] });
  types.CallToolResultSchema.parse(refused);
  assert.equal(refused.resultType, "complete", "a refusal is final, not input_required");
  assert.equal(refused.isError, true);
  assert.match(refused.content[0].text, /quota execute_per_minute reached for 'bob'.*resets at 2026-12-06T12:01:00Z \(in 30 s\)/);
  assert.equal(quotaMeta(refused).retry_after_seconds, 30);
  assert.equal(quotaMeta(refused).resets_at, "2026-12-06T12:01:00Z");
  setClock(T0 + 30000);
  const again = await call("execute_code", { code: sql, approval_token: tokens[2] });
  assert.equal(again.isError, undefined, JSON.stringify(again));
});

test("the test clock file is refused at start when others may write it, it holds no time, or it is missing", () => {
  const cfg = config("quota-reset-bad");
  const serve = (file) => spawnSync(sluiceBin, ["serve", "-c", cfg, "--http", "127.0.0.1:1", "--test-clock", file],
                                    { encoding: "utf8", timeout: 20000 });
  setClock(T0);
  chmodSync(clockFile, 0o622);
  let r = serve(clockFile);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /test clock .*clock\.ms: group or others may write it \(whoever writes it sets the server's time\); run chmod go-w on it/);
  for (const text of ["12:00", "", "-5", "1e12", "99999999999999999", "1796601600000 1"]) {
    writeFileSync(clockFile, text, { mode: 0o600 });
    chmodSync(clockFile, 0o600);
    r = serve(clockFile);
    assert.equal(r.status, 2, `${JSON.stringify(text)}: ${r.stderr}`);
    assert.match(r.stderr, /does not hold a time: write milliseconds since the Unix epoch \(UTC\)/, text);
  }
  r = serve(path.join(work, "no-such-clock"));
  assert.equal(r.status, 2);
  assert.match(r.stderr, /test clock .*no-such-clock: cannot open it: No such file or directory/);
});
