// programs_replicas.test.mjs — saved programs shared by two replicas through PostgreSQL
// ([state] programs_postgres; see ctest_programs_pg.sh): two `sluice serve` processes on one
// config (what replicas share), each driven by the official SDK client. A program promoted with
// `sluice program promote` on that config appears in both replicas' tools/list and runs on both;
// while PostgreSQL is down both refuse it with a message naming the store and list nothing stale
// (and the CLI refuses to write); once it is back they serve it again; a demotion disables it in
// both.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { apiKeyUsers, work, sluiceBin, startHttp, connectHttp, errorText } from "../e2e/codemode_harness.mjs";

const conninfo = process.env.SLUICE_PROGRAMS_PG;
const config = path.join(work, "replica.toml");
const code = path.join(work, "top.sql");
const replicas = [];

const sluice = (...args) => execFileSync(sluiceBin, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
const listed = async (client) => (await client.listTools()).tools.find((t) => t.name === "top_customers");
const call = (client) => client.callTool({ name: "top_customers", arguments: { segment: "Enterprise", n: 30 } });

// pg_ctl on the test's cluster (as the postgres user when the test runs as root: initdb refuses root).
function pgCtl(...args) {
  const cmd = [path.join(process.env.PG_BIN, "pg_ctl"), "-D", process.env.SLUICE_PG_DATA, "-w", ...args];
  if (process.getuid() === 0) execFileSync("runuser", ["-u", "postgres", "--", ...cmd], { stdio: "ignore" });
  else execFileSync(cmd[0], cmd.slice(1), { stdio: "ignore" });
}

before(async () => {
  assert.ok(conninfo, "run through ctest_programs_pg.sh");
  const keys = apiKeyUsers({ alice: "Analysts" });
  writeFileSync(config, `
${keys}
[database]
engine = "duckdb"
path = "demo.duckdb"
[code_mode]
enabled = true
token_secret_file = "token.key"
audit_log = "audit.log"
[state]
programs_postgres = "${conninfo}"
`);
  writeFileSync(code, "SELECT id, name FROM customers WHERE segment = $segment AND id <= $n ORDER BY id\n");
  for (const name of ["a", "b"]) {
    const server = await startHttp(config);
    replicas.push({ name, server, client: (await connectHttp(server, "alice")).client });
  }
});

after(async () => {
  for (const r of replicas) {
    await r.client.close();
    r.server.stop();
    await new Promise((done) => r.server.proc.once("exit", done));
  }
});

test("a program promoted with the replicas' config is listed and runs on both", async () => {
  for (const r of replicas) assert.equal(await listed(r.client), undefined, r.name);
  const record = JSON.parse(sluice("program", "promote", "-c", config, "top_customers", code, "--as", "root",
    "--group", "Analysts", "--var", 'segment="Enterprise"', "--var", "n=40", "--parameters",
    '{"segment": {"type": "string", "maxLength": 16}, "n": {"type": "integer", "minimum": 1, "maximum": 50}}'));
  assert.equal(record.version, 1);
  for (const r of replicas) {
    const tool = await listed(r.client);
    assert.ok(tool, `replica ${r.name} lists it without a restart`);
    assert.deepEqual(tool.inputSchema.properties.n, { type: "integer", minimum: 1, maximum: 50 });
    assert.match(tool.description, /saved program v1/);
    const out = await call(r.client);
    assert.ok(!out.isError, `${r.name}: ${errorText(out)}`);
    assert.ok(out.structuredContent.row_count > 0);
  }
  const rows = execFileSync("psql", ["-X", "-At", "-d", conninfo, "-c", "SELECT count(*) FROM sluice_programs"],
                            { encoding: "utf8" });
  assert.equal(rows.trim(), "1", "one line in the shared table");
});

test("while PostgreSQL is down no replica lists or runs it, and the refusal names the store", async () => {
  pgCtl("-m", "fast", "stop");
  try {
    for (const r of replicas) {
      assert.equal(await listed(r.client), undefined, `${r.name} lists nothing it cannot vouch for`);
      const out = await call(r.client);
      assert.ok(out.isError, r.name);
      assert.match(errorText(out), /saved-program store \(table sluice_programs in PostgreSQL\) cannot be read/);
    }
    assert.throws(() => sluice("program", "demote", "-c", config, "top_customers", "--as", "ops"),
                  (e) => /programs_postgres: cannot open the saved-program table sluice_programs/.test(e.stderr));
  } finally {
    pgCtl("-l", path.join(process.env.SLUICE_PG_DATA, "server.log"), "-o",
          `-c listen_addresses='' -k ${process.env.SLUICE_PG_SOCKET} -p ${process.env.SLUICE_PG_PORT} -c fsync=off`,
          "start");
  }
  for (const r of replicas) {
    assert.ok(await listed(r.client), `${r.name} serves it again once PostgreSQL is back`);
    assert.ok(!(await call(r.client)).isError, r.name);
  }
});

test("a demotion disables it in both", async () => {
  assert.match(sluice("program", "demote", "-c", config, "top_customers", "--as", "ops", "--reason", "retired"),
               /demoted top_customers \(version 2\)/);
  for (const r of replicas) {
    assert.equal(await listed(r.client), undefined, r.name);
    const out = await call(r.client);
    assert.ok(out.isError, r.name);
    assert.match(errorText(out), /was demoted by ops \(version 2\): retired/);
  }
});
