// upstream.test.mjs — an upstream API that fails: sluice in GraphQL code mode
// (examples/graphql/sluice.toml) in front of the real demo GraphQL server
// (examples/graphql/server.mjs), whose /500/graphql answers HTTP 500 and whose /slow/graphql
// hangs (answers after 60 s) under a 1 s execution timeout. ROUNDS executions against each:
// every one a clear tool error, every one in the audit log as failed with that reason, the
// server healthy afterwards (a curated-free call, tools/list, answers), its descriptors back
// where they were (no socket to the upstream left behind), the chain intact.
// (The plain "upstream down / slow / 500" messages are also checked in tests/e2e/graphql.test.mjs.)
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";

import { McpClient, auditRecords, freePort, startServer, stopServer, until, verifyAudit, workDir } from "./lib.mjs";

const src = path.resolve(import.meta.dirname, "../..");
const ROUNDS = 6;
const CODE = "{ customers(limit: 1) { name } }";
const fds = (pid) => readdirSync(`/proc/${pid}/fd`).length;

let work, upstream, upstreamPort;
const KEY = "faults-upstream-key-0123456789abcdef";
process.env.SLUICE_FAULTS_KEY = KEY; // inherited by the server

before(async () => {
  work = workDir();
  upstreamPort = await freePort();
  upstream = spawn(process.execPath, [path.join(src, "examples/graphql/server.mjs"), "--db", work.file("demo.duckdb"),
    "--port", String(upstreamPort), "--slow-ms", "60000"], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  await new Promise((resolve, reject) => {
    upstream.stdout.on("data", (d) => { out += d; if (out.includes("listening")) resolve(); });
    upstream.stderr.on("data", (d) => (out += d));
    upstream.on("exit", (c) => reject(new Error(`upstream exited ${c}: ${out}`)));
  });
});

after(() => {
  upstream?.kill("SIGTERM");
  work.remove();
});

function graphqlConfig(prefix) {
  return readFileSync(path.join(src, "examples/graphql/sluice.toml"), "utf8")
    .replace(/^endpoint = .*$/m, `endpoint = "http://127.0.0.1:${upstreamPort}${prefix}/graphql"`)
    .replace(/^auth_token_env = .*$/m, "")
    .replace(/^path = "schema.graphql".*$/m, `path = "${src}/examples/graphql/schema.graphql"`)
    .replace(/^policies = .*$/m, `policies = "${src}/examples/graphql/policies.cedar"`)
    .replace(/^token_secret_file = .*$/m, `token_secret_file = "token.key"\naudit_log = "audit.jsonl"`)
    .replace(/^execution_timeout_seconds = .*$/m, "execution_timeout_seconds = 1")
    .replace(/^\[database\]/m, `[[api_keys]]\nuser = "alice"\ngroups = ["StandardUsers"]\nkey_env = "SLUICE_FAULTS_KEY"\n\n[database]`);
}

for (const [name, prefix, want] of [
  ["HTTP 500", "/500", /HTTP 500 without a GraphQL response/],
  ["a hang", "/slow", /did not answer within 1000 ms/],
]) {
  test(`an upstream answering ${name}: clear errors, audited, nothing leaked`, async () => {
    const srv = await startServer(work, graphqlConfig(prefix));
    try {
      const c = new McpClient(srv.url, { headers: { authorization: `Bearer ${KEY}` } });
      await c.open();
      const seen = auditRecords(work).length;
      await c.call("validate_code", { code: CODE }); // warm: schema, policy
      const base = fds(srv.proc.pid);
      const t0 = Date.now();
      for (let i = 0; i < ROUNDS; i++) {
        const v = await c.call("validate_code", { code: CODE });
        assert.ok(v.structuredContent.approval_token, JSON.stringify(v.structuredContent));
        const r = await c.send("execute_code", { code: CODE, approval_token: v.structuredContent.approval_token });
        const result = r.msg?.result;
        assert.equal(result?.isError, true, `round ${i}: ${JSON.stringify(r.msg)}`);
        assert.match(result.content[0].text, want, `round ${i}`);
      }
      const failed = auditRecords(work).slice(seen).filter((x) => x.event === "execute");
      assert.equal(failed.length, ROUNDS, "one execute record per call");
      for (const x of failed) {
        assert.equal(x.decision, "failed");
        assert.match(x.error, want);
      }
      assert.ok(Array.isArray((await c.call("validate_code", { code: CODE })).structuredContent
        .violations ?? []), "the server still answers");
      assert.ok(await until(() => fds(srv.proc.pid) <= base, 5000), `descriptors ${fds(srv.proc.pid)}, ${base} before`);
      await c.close();
      const ok = verifyAudit(work);
      assert.ok(ok.ok, ok.out);
      console.log(`${name}: ${ROUNDS} executions failed clearly in ${Date.now() - t0} ms: ${failed[0].error}`);
    } finally {
      assert.deepEqual(await stopServer(srv), { code: 0, signal: null });
    }
  });
}
