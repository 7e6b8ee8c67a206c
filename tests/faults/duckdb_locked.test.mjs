// duckdb_locked.test.mjs — the DuckDB file locked by another process (hold_duckdb.mjs opens it
// read-write, as a second program using the database would): `sluice serve` must refuse to
// start, fast, with an error that names the file and the lock (and the holder), not hang or
// serve half; once the other process lets go, the same command starts and answers. serve opens
// DuckDB at the first call that needs it, so start-up probes the file's lock without opening it;
// a lock taken after start-up, before that first call, is that call's clear error, and the next
// call after the holder lets go opens the file and answers.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";

import { McpClient, SLUICE, config, freePort, startServer, stopServer, workDir } from "./lib.mjs";

const START_BOUND_MS = 10000;

// Another process holding the file: resolves once it holds the lock.
async function hold(work) {
  const holder = spawn(process.execPath, [path.join(import.meta.dirname, "hold_duckdb.mjs"), work.file("demo.duckdb")],
    { stdio: ["pipe", "pipe", "inherit"] });
  await new Promise((resolve, reject) => {
    holder.stdout.on("data", (d) => String(d).includes("locked") && resolve());
    holder.on("exit", (code) => reject(new Error(`holder exited ${code}`)));
  });
  return holder;
}

test("a DuckDB file locked by another process: a clear refusal to start, then recovery", async () => {
  const work = workDir();
  const holder = await hold(work);
  try {
    writeFileSync(work.file("sluice.toml"), config());
    const t0 = Date.now();
    const r = spawnSync(SLUICE, ["serve", "-c", work.file("sluice.toml"), "--http", `127.0.0.1:${await freePort()}`],
      { timeout: START_BOUND_MS, encoding: "utf8" });
    assert.equal(r.error, undefined, `serve did not give up within ${START_BOUND_MS} ms`);
    assert.notEqual(r.status, 0, "serve started on a locked database");
    assert.match(r.stderr, /lock/i);
    assert.ok(r.stderr.includes(work.file("demo.duckdb")), r.stderr);
    assert.match(r.stderr, new RegExp(`PID ${holder.pid}`), "the message names the process holding it");
    console.log(`locked: exit ${r.status} after ${Date.now() - t0} ms: ${r.stderr.trim()}`);

    holder.stdin.end(); // the other process lets go
    await new Promise((resolve) => holder.on("exit", resolve));
    const srv = await startServer(work, config());
    try {
      const c = new McpClient(srv.url);
      await c.open();
      assert.equal((await c.call("ping", {})).isError, undefined);
      await c.close();
    } finally {
      assert.deepEqual(await stopServer(srv), { code: 0, signal: null });
    }
  } finally {
    holder.kill();
    work.remove();
  }
});

test("locked after start-up, before the first call: that call's clear error, then recovery", async () => {
  const work = workDir();
  const srv = await startServer(work, config());
  let holder;
  try {
    holder = await hold(work);
    const c = new McpClient(srv.url);
    await c.open();
    for (const name of ["ping", "validate_code"]) {
      const { msg } = await c.send(name, name === "ping" ? {} : { code: "SELECT 1" });
      assert.equal(msg.result?.isError, true, `${name} answered on a locked file: ${JSON.stringify(msg)}`);
      const text = msg.result.content.map((p) => p.text).join("\n");
      assert.match(text, /lock/i, text);
      assert.ok(text.includes(work.file("demo.duckdb")), text);
      assert.match(text, new RegExp(`PID ${holder.pid}`), `the error names the holder: ${text}`);
    }
    holder.stdin.end();
    await new Promise((resolve) => holder.on("exit", resolve));
    assert.equal((await c.call("ping", {})).isError, undefined);
    await c.close();
  } finally {
    holder?.kill();
    assert.deepEqual(await stopServer(srv), { code: 0, signal: null });
    work.remove();
  }
});
