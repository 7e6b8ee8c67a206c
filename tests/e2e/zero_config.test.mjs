// zero_config.test.mjs — `sluice serve --db FILE` with no config, answered by the official SDK
// client over stdio: read-only SQL code mode on that database (DuckDB and SQLite), an ephemeral
// signing key said loudly on stderr, no audit file unless --audit asks for one.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, test } from "node:test";

import { Client, StdioClientTransport } from "./harness.mjs";
import { errorText, execute, sluiceBin, validate, work } from "./codemode_harness.mjs";

async function serveDb(db, extra = [], cwd = work) {
  const transport = new StdioClientTransport({ command: sluiceBin, args: ["serve", "--db", db, ...extra, "--stdio"],
                                               cwd, stderr: "pipe" });
  let log = "";
  transport.stderr.on("data", (d) => (log += d));
  const client = new Client({ name: "zero-config", version: "1.0.0" }, { capabilities: {} });
  await client.connect(transport);
  return { client, log: () => log, close: () => client.close() };
}

for (const file of ["demo.duckdb", "demo.sqlite"]) {
  describe(`serve --db ${file}`, () => {
    test("answers the SDK client: validate, then execute the same code", async () => {
      const dir = mkdtempSync(path.join(tmpdir(), "sluice-zc-"));
      const s = await serveDb(path.join(work, file), [], dir);
      try {
        const code = "SELECT COUNT(*) AS n FROM customers WHERE plan = 'enterprise'";
        const v = await validate(s.client, code);
        assert.equal(v.valid, true, JSON.stringify(v.violations));
        const r = await execute(s.client, code, v.approval_token);
        assert.equal(r.isError, undefined, errorText(r));
        assert.match(errorText(r), /\n\[\d+\]\n/);
        assert.match(s.log(), /EPHEMERAL signing key/);
        assert.match(s.log(), /no audit log/);
        assert.deepEqual(readdirSync(dir), [], "a zero-config server wrote files without being asked");
      } finally {
        await s.close();
      }
    });

    test("is read-only: a DELETE never runs", async () => {
      const s = await serveDb(path.join(work, file));
      try {
        const code = "DELETE FROM customers";
        const v = await validate(s.client, code);
        if (v.valid) {
          const r = await execute(s.client, code, v.approval_token);
          assert.equal(r.isError, true, "a DELETE ran on a zero-config server");
        }
        const count = "SELECT COUNT(*) AS n FROM customers";
        const c = await validate(s.client, count);
        assert.match(errorText(await execute(s.client, count, c.approval_token)), /\n\[5000\]\n/);
      } finally {
        await s.close();
      }
    });
  });
}

test("serve --db --audit FILE keeps a verifiable audit log", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "sluice-zc-"));
  const audit = path.join(dir, "audit.jsonl");
  const s = await serveDb(path.join(work, "demo.duckdb"), ["--audit", audit]);
  try {
    const code = "SELECT 1 AS one";
    const v = await validate(s.client, code);
    assert.equal((await execute(s.client, code, v.approval_token)).isError, undefined);
  } finally {
    await s.close();
  }
  assert.ok(existsSync(audit));
  assert.match(execFileSync(sluiceBin, ["audit", "verify", audit]).toString(), /[1-9]\d* records, chain intact/);
});
