// caller.test.mjs — the caller inside PostgreSQL (docs/postgres.md, "The caller inside the
// database"), through the official SDK client over HTTP with API-key users (run by
// ctest_postgres.sh). Row-level security policies written in PostgreSQL decide what each user
// sees: two users run the same code and get different rows, by role (caller_roles) and by
// published claims (caller_claims + sluice.user). A caller no group maps is refused at validate;
// programs that try to change the role or the claims themselves are refused by the analyzer.
// psql, as the admin, sets the scene.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { apiKeyUsers, assertRefused, connectHttp, errorText, execute, startHttp, validate, work }
  from "../e2e/codemode_harness.mjs";
import { admin } from "./pg_admin.mjs";

const { SLUICE_PG_READ: READ, SLUICE_PG_ADMIN: ADMIN } = process.env;
if (!READ || !ADMIN) throw new Error("run through ctest_postgres.sh");

const users = { alice: "red", bob: "blue", carol: "green" };
const CODE = "SELECT id, owner, team FROM caller_notes ORDER BY id";

function config(name, codeMode) {
  const file = path.join(work, `${name}.toml`);
  writeFileSync(file, `
[server]
name = "sluice-caller"
${apiKeyUsers(users)}
[database]
engine = "postgres"
conninfo = "${READ}"
[code_mode]
enabled = true
server_id = "${name}"
token_secret_file = "token.key"
auto_approve_levels = ["low", "medium", "high"]
execution_timeout_seconds = 5
${codeMode}
`);
  return file;
}

async function rows(client, code = CODE) {
  const v = await validate(client, code);
  assert.equal(v.valid, true, JSON.stringify(v.violations));
  const r = await execute(client, code, v.approval_token);
  assert.ok(!r.isError, errorText(r));
  return r.structuredContent.rows;
}

before(() => {
  // Rows of two teams and three owners; the read role may SELECT the table but, as RLS has no
  // policy for it, sees nothing of it itself: only a caller's role or claims open rows.
  admin(`
    CREATE TABLE caller_notes (id int PRIMARY KEY, owner text, team text);
    INSERT INTO caller_notes VALUES (1, 'alice', 'red'), (2, 'bob', 'blue'), (3, 'alice', 'red'),
                                    (4, 'dave', 'red'), (5, 'bob', 'blue');
    ALTER TABLE caller_notes ENABLE ROW LEVEL SECURITY;
    CREATE ROLE red_team NOLOGIN; CREATE ROLE blue_team NOLOGIN; CREATE ROLE by_claims NOLOGIN;
    CREATE ROLE not_granted NOLOGIN;
    GRANT red_team, blue_team, by_claims TO sluice_read;
    GRANT SELECT ON caller_notes TO sluice_read, red_team, blue_team, by_claims, not_granted;
    CREATE POLICY red ON caller_notes FOR SELECT TO red_team USING (team = 'red');
    CREATE POLICY blue ON caller_notes FOR SELECT TO blue_team USING (team = 'blue');
    CREATE POLICY mine ON caller_notes FOR SELECT TO by_claims
      USING (owner = current_setting('sluice.user', true)
             OR current_setting('sluice.groups', true)::jsonb ? 'green');`);
});

after(() => {
  admin(`DROP TABLE caller_notes; DROP ROLE red_team, blue_team, by_claims, not_granted;`);
});

describe("caller_roles: SET LOCAL ROLE by group", () => {
  let server;
  const c = {};
  before(async () => {
    server = await startHttp(config("pg-caller-roles",
      `caller_roles = { red = "red_team", blue = "blue_team" }`));
    for (const u of Object.keys(users)) c[u] = (await connectHttp(server, u)).client;
  });
  after(async () => {
    for (const x of Object.values(c)) await x.close();
    server?.stop();
  });

  test("alice (red) and bob (blue) run the same code and see their team's rows", async () => {
    assert.deepEqual(await rows(c.alice), [[1, "alice", "red"], [3, "alice", "red"], [4, "dave", "red"]]);
    assert.deepEqual(await rows(c.bob), [[2, "bob", "blue"], [5, "bob", "blue"]]);
  });

  test("the role is the caller's for the whole statement (current_user)", async () => {
    assert.deepEqual(await rows(c.alice, "SELECT current_user AS u"), [["red_team"]]);
  });

  test("carol, in no mapped group, is refused at validate (no read-role fallback)", async () => {
    const v = await validate(c.carol, CODE);
    assert.equal(v.valid, false);
    assert.equal(v.approval_token, null);
    const text = JSON.stringify(v.violations);
    assert.match(text, /caller_roles/);
    assert.match(text, /'red', 'blue'/);
  });

  test("a token is the user's: bob cannot run alice's approval", async () => {
    const v = await validate(c.alice, CODE);
    const r = await execute(c.bob, CODE, v.approval_token);
    assert.equal(r.isError, true);
  });

  // Programs that try to leave the caller's role or forge its claims: refused by the analyzer
  // (or, at worst, by the server), never run.
  for (const code of [
    "SET ROLE blue_team",
    "SET LOCAL ROLE blue_team",
    "RESET ROLE",
    "SET SESSION AUTHORIZATION sluice_read",
    "RESET ALL",
    "DISCARD ALL",
    "SET row_security = off",
    "SELECT set_config('role', 'blue_team', true)",
    "SELECT pg_catalog.set_config('role', 'blue_team', true)",
    "SELECT \"set_config\"('role', 'blue_team', true)",
    "SELECT PG_CATALOG.SET_CONFIG('sluice.user', 'bob', true)",
    "SELECT id FROM caller_notes, LATERAL (SELECT set_config('role', 'blue_team', true)) x",
    "WITH r AS (SELECT set_config('role', 'blue_team', true)) SELECT id FROM caller_notes, r",
    "SELECT current_setting('sluice.user')",
    "SELECT current_setting('role')",
    "SELECT id FROM caller_notes WHERE set_config('role', 'blue_team', true) IS NOT NULL",
  ]) {
    test(`refuses: ${code}`, async () => assertRefused(c.alice, code));
  }

  test("after the attempts alice still sees exactly her team's rows", async () => {
    assert.deepEqual((await rows(c.alice)).map((r) => r[2]), ["red", "red", "red"]);
  });
});

describe("caller_claims: sluice.user and sluice.groups for RLS policies", () => {
  let server;
  const c = {};
  before(async () => {
    server = await startHttp(config("pg-caller-claims",
      `caller_default_role = "by_claims"\ncaller_claims = true`));
    for (const u of Object.keys(users)) c[u] = (await connectHttp(server, u)).client;
  });
  after(async () => {
    for (const x of Object.values(c)) await x.close();
    server?.stop();
  });

  test("alice and bob see their own rows; carol's group opens all", async () => {
    assert.deepEqual((await rows(c.alice)).map((r) => r[0]), [1, 3]);
    assert.deepEqual((await rows(c.bob)).map((r) => r[0]), [2, 5]);
    assert.deepEqual((await rows(c.carol)).map((r) => r[0]), [1, 2, 3, 4, 5]);
  });

  test("a forged claim in the program is refused; the published one stays", async () => {
    await assertRefused(c.bob, "SELECT id FROM caller_notes, (SELECT set_config('sluice.user', 'alice', true)) f");
    assert.deepEqual((await rows(c.bob)).map((r) => r[0]), [2, 5]);
  });
});

describe("without caller keys the read role itself runs the code", () => {
  test("RLS gives the read role no rows of caller_notes", async () => {
    const server = await startHttp(config("pg-caller-none", ""));
    const { client, close } = await connectHttp(server, "alice");
    try {
      assert.deepEqual(await rows(client), []);
    } finally {
      await close();
      server.stop();
    }
  });
});

test("a mapped role the read role is not a member of fails closed with the reason", async () => {
  const server = await startHttp(config("pg-caller-bad", `caller_default_role = "not_granted"`));
  const { client, close } = await connectHttp(server, "alice");
  try {
    // refused at validate already: the plan is asked for as the role execute would run as
    const r = await client.callTool({ name: "validate_code", arguments: { code: CODE } });
    const v = r.structuredContent;
    assert.equal(v.valid, false, JSON.stringify(r));
    const why = JSON.stringify(v.violations);
    assert.match(why, /not_granted/);
    assert.match(why, /permission denied/);
  } finally {
    await close();
    server.stop();
  }
});

// EXPLAIN runs as the caller's mapped role (SET LOCAL ROLE, as execute does): the estimate is the
// rows row-level security lets that role see, and a table the role may not read is refused at
// validate with PostgreSQL's reason, not approved and then failed at execute.
describe("the estimate is made as the caller's role", () => {
  let server;
  const c = {};
  before(async () => {
    admin(`
      CREATE TABLE caller_bulk (id int PRIMARY KEY, region text);
      INSERT INTO caller_bulk SELECT g, CASE WHEN g <= 10 THEN 'north' ELSE 'south' END
        FROM generate_series(1, 2000) g;
      ANALYZE caller_bulk;
      ALTER TABLE caller_bulk ENABLE ROW LEVEL SECURITY;
      GRANT SELECT ON caller_bulk TO sluice_read, red_team, blue_team;
      CREATE POLICY red_north ON caller_bulk FOR SELECT TO red_team USING (region = 'north');
      CREATE POLICY blue_all ON caller_bulk FOR SELECT TO blue_team USING (true);
      CREATE TABLE caller_blue_only (id int);
      GRANT SELECT ON caller_blue_only TO sluice_read, blue_team;`);
    server = await startHttp(config("pg-caller-explain",
      `caller_roles = { red = "red_team", blue = "blue_team" }`));
    for (const u of ["alice", "bob"]) c[u] = (await connectHttp(server, u)).client;
  });
  after(async () => {
    for (const cl of Object.values(c)) await cl.close();
    server.stop();
    admin(`DROP TABLE caller_bulk; DROP TABLE caller_blue_only;`);
  });

  test("alice's estimate is her 10 rows, bob's the whole 2000", async () => {
    const code = "SELECT id FROM caller_bulk";
    const a = await validate(c.alice, code);
    const b = await validate(c.bob, code);
    assert.ok(a.metadata.estimatedRows <= 20, `alice (red_team, region = 'north'): ${a.metadata.estimatedRows}`);
    assert.ok(b.metadata.estimatedRows >= 1900, `bob (blue_team, all rows): ${b.metadata.estimatedRows}`);
    const r = await execute(c.alice, code, a.approval_token);
    assert.equal(r.structuredContent.row_count, 10, errorText(r));
  });

  test("a table alice's role may not read is refused at validate; bob's role may", async () => {
    const code = "SELECT id FROM caller_blue_only";
    const r = await c.alice.callTool({ name: "validate_code", arguments: { code } });
    assert.equal(r.structuredContent.valid, false, JSON.stringify(r));
    assert.match(JSON.stringify(r.structuredContent.violations), /permission denied for table caller_blue_only/);
    assert.equal((await validate(c.bob, code)).valid, true);
  });
});
