// key_rotation.test.mjs — rotating the token key in a running `sluice serve` (HTTP, official SDK
// client): a token validated under K1 executes once after the key files were rotated to K2
// (K1 previous), by SIGHUP and by a file change alone; a token signed with K0, a key that was
// never in this server's ring, is refused; a broken key file keeps the keys in use.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { connectHttp, errorText, execute, sluiceBin, startHttp, validate, work, writeConfig } from "./codemode_harness.mjs";

const code = "SELECT segment, count(*) AS n FROM customers GROUP BY segment ORDER BY segment";

function keygen(file, id) {
  execFileSync(sluiceBin, ["keygen", "-o", file, "--key-id", id, "--force"], { stdio: "ignore" });
}

// Replaces dst atomically with a copy of src (mode 0600), as docs/security.md says to.
function replaceWith(src, dst) {
  copyFileSync(src, `${dst}.tmp`);
  renameSync(`${dst}.tmp`, dst);
}

// The key id a token was signed with: "sl1." payload, payload = u8 version | u8 n | key id ...
function keyIdOf(token) {
  const payload = Buffer.from(token.split(".")[1], "base64url");
  return payload.subarray(2, 2 + payload[1]).toString();
}

// Waits for the server log to contain text; bounded, polls every 20 ms.
async function waitForLog(server, text, ms = 5000) {
  const until = Date.now() + ms;
  while (!server.log().includes(text)) {
    if (Date.now() > until) throw new Error(`no "${text}" in the log:\n${server.log()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

// A key directory with current.key = K1, previous.key = K1 (nothing older), and K2 ready.
function keyDir(name) {
  const dir = path.join(work, `rotation-${name}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { mode: 0o700 });
  for (const id of ["k1", "k2"]) keygen(path.join(dir, `${id}.key`), `${name}-${id}`);
  replaceWith(path.join(dir, "k1.key"), path.join(dir, "current.key"));
  replaceWith(path.join(dir, "k1.key"), path.join(dir, "previous.key"));
  return dir;
}

function rotatedConfig(name, dir) {
  return writeConfig(name, { key: path.join(dir, "current.key"),
                             extra: `token_bind_session = false\ntoken_previous_secret_file = "${path.join(dir, "previous.key")}"` });
}

// Rotation: the current key becomes the previous one, then K2 becomes current.
function rotate(dir) {
  replaceWith(path.join(dir, "current.key"), path.join(dir, "previous.key"));
  replaceWith(path.join(dir, "k2.key"), path.join(dir, "current.key"));
}

let k0Token; // signed by a server whose only key is K0
before(async () => {
  const k0 = path.join(work, "rotation-k0.key");
  keygen(k0, "rotation-k0");
  const server = await startHttp(writeConfig("rotation-k0", { key: k0, extra: "token_bind_session = false" }));
  const alice = await connectHttp(server, "alice");
  try {
    k0Token = (await validate(alice.client, code)).approval_token;
  } finally {
    await alice.close();
    server.stop();
  }
  assert.equal(keyIdOf(k0Token), "rotation-k0");
});

for (const how of ["sighup", "file-change"]) {
  describe(`token key rotation without a restart (${how})`, () => {
    let server, alice, alice2, dir;
    before(async () => {
      dir = keyDir(how);
      server = await startHttp(rotatedConfig(`rotation-${how}`, dir));
      alice = await connectHttp(server, "alice");
      alice2 = await connectHttp(server, "alice");
    });
    after(async () => {
      for (const c of [alice, alice2]) await c?.close().catch(() => {});
      server?.stop();
    });

    test("a K1 token executes once after rotating to K2; K0 is refused", async () => {
      const before = await validate(alice.client, code);
      assert.equal(before.valid, true, JSON.stringify(before.violations));
      assert.equal(keyIdOf(before.approval_token), `${how}-k1`);
      rotate(dir);
      if (how === "sighup") {
        server.proc.kill("SIGHUP");
        await waitForLog(server, `token keys reloaded (SIGHUP): signing with '${how}-k2' (previous: '${how}-k1')`);
      }
      const rotated = await validate(alice.client, code);
      assert.equal(keyIdOf(rotated.approval_token), `${how}-k2`, "new tokens are signed with K2");
      const r = await execute(alice2.client, code, before.approval_token); // another HTTP session
      assert.ok(!r.isError, errorText(r));
      assert.ok(r.structuredContent.row_count > 0);
      const again = await execute(alice.client, code, before.approval_token);
      assert.equal(again.isError, true);
      assert.match(errorText(again), /already used/);
      const forged = await execute(alice.client, code, k0Token);
      assert.equal(forged.isError, true);
      assert.match(errorText(forged), /signed with key 'rotation-k0', which this server no longer accepts/);
      if (how === "file-change") // seen at the token check, no signal sent
        assert.match(server.log(), new RegExp(`token keys reloaded \\(a key file changed\\): signing with '${how}-k2'`));
      assert.equal(server.proc.exitCode, null, "the server still runs");
    });

    test("a broken key file keeps the keys in use", async () => {
      writeFileSync(path.join(dir, "broken.key"), "sluice-key-v1 broken not*base64\n", { mode: 0o600 });
      replaceWith(path.join(dir, "broken.key"), path.join(dir, "current.key"));
      if (how === "sighup") server.proc.kill("SIGHUP");
      const v = await validate(alice.client, code);
      assert.equal(keyIdOf(v.approval_token), `${how}-k2`, "K2 still signs");
      await waitForLog(server, `token keys NOT reloaded`);
      assert.match(server.log(), new RegExp(`keeping the keys in use, still signing with '${how}-k2'`));
      const r = await execute(alice2.client, code, v.approval_token);
      assert.ok(!r.isError, errorText(r));
      assert.equal(readFileSync(path.join(dir, "current.key"), "utf8").startsWith("sluice-key-v1 broken"), true);
    });
  });
}
