// codemode.test.mjs — SQL code mode end to end through the official SDK client: the seeds'
// questions validate and execute on the demo database; the approval token binds code, user,
// session, server, variables and time; whitespace/comment/case changes still verify.
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { connectHttp, connectStdio, errorText, execute, startHttp, validate, work, writeConfig } from "./codemode_harness.mjs";

const seedDir = path.join(import.meta.dirname, "..", "unit", "data", "sql", "seeds");
// Seeds whose SQL reads files or tables of another system (seed 003's DuckDB-file and Pawrly
// examples): code mode must refuse them with a reason, since external access is off by design.
const RUNNABLE = new Set(["000_quarterly_metrics.sql", "003_revenue_drop.sql"]);

const SEED_003_VARIANT = readFileSync(path.join(seedDir, "003_revenue_drop.sql"), "utf8");

describe("code mode over stdio (DuckDB demo)", () => {
  let conn;
  before(async () => { conn = await connectStdio(writeConfig("stdio")); });
  after(async () => conn?.close());

  test("lists the code-mode tools, resources and prompt", async () => {
    const tools = (await conn.client.listTools()).tools.map((t) => t.name);
    assert.ok(tools.includes("validate_code") && tools.includes("execute_code"), tools.join());
    const res = (await conn.client.listResources()).resources.map((r) => r.uri);
    for (const u of ["code-mode://instructions", "code-mode://policies", "code-mode://schema"])
      assert.ok(res.includes(u), `missing ${u}`);
    const schema = await conn.client.readResource({ uri: "code-mode://schema" });
    assert.match(schema.contents[0].text, /ssn \S+ \[join\/filter only\]/);
    const prompt = await conn.client.getPrompt({ name: "start_code_mode", arguments: { question: "top customers" } });
    // instructions, the whole (small) schema inline, the ask (issue 26: no policies text here)
    assert.equal(prompt.messages.length, 3);
    assert.match(prompt.messages[1].content.text, /^customers: id INTEGER, name VARCHAR/m);
    // the schema is in the prompt: nothing to find, so its steps start at validate_code (issue 26),
    // while code-mode://instructions (read on its own) keeps the discovery step
    assert.doesNotMatch(prompt.messages[0].content.text, /`search`|`describe`/);
    assert.match(prompt.messages[0].content.text, /^1\. `validate_code`.*\n2\. `execute_code`/m);
    const instructions = (await conn.client.readResource({ uri: "code-mode://instructions" })).contents[0].text;
    assert.match(instructions, /^1\. Find .* with `search` \{query\}, then `describe`.*\n2\. `validate_code`/m);
  });

  for (const file of readdirSync(seedDir).filter((f) => f.endsWith(".sql")).sort()) {
    const code = readFileSync(path.join(seedDir, file), "utf8");
    if (RUNNABLE.has(file)) {
      test(`seed ${file} validates and executes verbatim`, async () => {
        const v = await validate(conn.client, code);
        assert.equal(v.valid, true, JSON.stringify(v.violations));
        assert.equal(v.action, "read");
        assert.ok(v.approval_token && v.explanation.length > 20);
        const r = await execute(conn.client, code, v.approval_token);
        assert.ok(!r.isError, errorText(r));
        assert.ok(r.structuredContent.row_count > 0, "the demo data has the pattern the seed looks for");
        assert.match(errorText(r), /<untrusted-data-[0-9a-f]+>/);
      });
    } else {
      test(`seed ${file} is refused with a reason`, async () => {
        const v = await validate(conn.client, code);
        assert.equal(v.valid, false);
        assert.ok(v.violations.length > 0 && v.violations[0].message.length > 10);
        assert.equal(v.approval_token, null);
      });
    }
  }

  test("code changed after validation is refused (one character, one literal)", async () => {
    const v = await validate(conn.client, SEED_003_VARIANT);
    for (const changed of [SEED_003_VARIANT.replace("LIMIT 20", "LIMIT 21"),
                           SEED_003_VARIANT.replace("'enterprise'", "'pro'")]) {
      assert.notEqual(changed, SEED_003_VARIANT);
      const r = await execute(conn.client, changed, v.approval_token);
      assert.equal(r.isError, true);
      assert.match(errorText(r), /code differs|validate/i);
    }
    const ok = await execute(conn.client, SEED_003_VARIANT, v.approval_token);
    assert.ok(!ok.isError, errorText(ok));
  });

  test("whitespace, comments and keyword case do not change the hash", async () => {
    const code = "SELECT plan, count(*) AS n FROM customers GROUP BY plan ORDER BY plan";
    const v = await validate(conn.client, code);
    const variant = "select plan,\n  COUNT(*) as n -- per plan\nfrom customers /* all */ group by plan order by plan";
    const r = await execute(conn.client, variant, v.approval_token);
    assert.ok(!r.isError, errorText(r));
    assert.equal(r.structuredContent.row_count, 3);
  });

  test("a token is single-use", async () => {
    const code = "SELECT count(*) AS n FROM orders";
    const v = await validate(conn.client, code);
    assert.ok(!(await execute(conn.client, code, v.approval_token)).isError);
    const again = await execute(conn.client, code, v.approval_token);
    assert.equal(again.isError, true);
    assert.match(errorText(again), /already used/);
  });

  test("variables are bound, and other variables are refused", async () => {
    const code = "SELECT count(*) AS n FROM customers WHERE plan = $plan";
    const v = await validate(conn.client, code, { plan: "enterprise" });
    assert.equal(v.valid, true, JSON.stringify(v.violations));
    const other = await execute(conn.client, code, v.approval_token, { plan: "free" });
    assert.equal(other.isError, true);
    assert.match(errorText(other), /variables/);
    const v2 = await validate(conn.client, code, { plan: "x' OR '1'='1" });
    const r = await execute(conn.client, code, v2.approval_token, { plan: "x' OR '1'='1" });
    assert.ok(!r.isError, errorText(r));
    assert.deepEqual(r.structuredContent.rows, [[0]]);
  });

  test("row cap reports truncation", async () => {
    const code = "SELECT id FROM orders ORDER BY id";
    const v = await validate(conn.client, code);
    const r = await execute(conn.client, code, v.approval_token);
    assert.ok(!r.isError, errorText(r));
    assert.equal(r.structuredContent.row_count, 1000);
    assert.equal(r.structuredContent.truncated, true);
  });

  test("a forged or garbage token is refused", async () => {
    for (const t of ["", "sl1.AAAA.BBBB", "x".repeat(5000)]) {
      const r = await conn.client.callTool({ name: "execute_code", arguments: { code: "SELECT 1", approval_token: t || "z" } });
      assert.equal(r.isError, true);
    }
  });
});

describe("token binding across users, sessions and servers (HTTP)", () => {
  let server, other, alice, bob, alice2;
  before(async () => {
    server = await startHttp(writeConfig("http"));
    other = await startHttp(writeConfig("http-other", { serverId: "e2e-other" }));
    alice = await connectHttp(server, "alice");
    alice2 = await connectHttp(server, "alice");
    bob = await connectHttp(server, "bob");
  });
  after(async () => {
    for (const c of [alice, alice2, bob]) await c?.close().catch(() => {});
    server?.stop();
    other?.stop();
  });
  const code = "SELECT segment, count(*) AS n FROM customers GROUP BY segment";

  test("the same user and session may execute", async () => {
    const v = await validate(alice.client, code);
    const r = await execute(alice.client, code, v.approval_token);
    assert.ok(!r.isError, errorText(r));
  });

  test("another user is refused", async () => {
    const v = await validate(alice.client, code);
    const r = await execute(bob.client, code, v.approval_token);
    assert.equal(r.isError, true);
    assert.match(errorText(r), /user/i);
  });

  test("another session of the same user is refused", async () => {
    const v = await validate(alice.client, code);
    const r = await execute(alice2.client, code, v.approval_token);
    assert.equal(r.isError, true);
    assert.match(errorText(r), /session/i);
  });

  test("another server is refused", async () => {
    const v = await validate(alice.client, code);
    const c = await connectHttp(other, "alice");
    try {
      const r = await execute(c.client, code, v.approval_token);
      assert.equal(r.isError, true);
      assert.match(errorText(r), /server|session/i);
    } finally { await c.close(); }
  });
});

describe("token_bind_session = false: the principal, not the transport session", () => {
  let server, alice, alice2, bob;
  before(async () => {
    server = await startHttp(writeConfig("http-unbound", { extra: "token_bind_session = false" }));
    alice = await connectHttp(server, "alice");
    alice2 = await connectHttp(server, "alice");
    bob = await connectHttp(server, "bob");
  });
  after(async () => {
    for (const c of [alice, alice2, bob]) await c?.close().catch(() => {});
    server?.stop();
  });
  const code = "SELECT segment, count(*) AS n FROM customers GROUP BY segment";

  test("another HTTP session of the same principal may execute, once", async () => {
    const v = await validate(alice.client, code);
    const r = await execute(alice2.client, code, v.approval_token);
    assert.ok(!r.isError, errorText(r));
    const again = await execute(alice.client, code, v.approval_token);
    assert.equal(again.isError, true);
    assert.match(errorText(again), /already used/);
  });

  test("another principal is still refused", async () => {
    const v = await validate(alice.client, code);
    const r = await execute(bob.client, code, v.approval_token);
    assert.equal(r.isError, true);
    assert.match(errorText(r), /user/i);
  });

  test("arguments the input schema refuses still leave a denial record", async () => {
    const auditFile = path.join(work, "http-unbound.audit.jsonl");
    const records = () => readFileSync(auditFile, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    const before = records().length;
    for (const token of [42, null, { t: 1 }, ""]) {
      const r = await execute(alice.client, code, token);
      assert.equal(r.isError, true);
    }
    const audit = records().slice(before);
    const denials = audit.filter((e) => e.event === "deny" && e.reason === "arguments");
    assert.equal(denials.length, 4, JSON.stringify(audit.slice(-4)));
    assert.equal(denials[0].user, "alice");
  });
});

// Token expiry is tested with the injectable clock, not by sleeping past a TTL here:
// tests/unit/test_codemode_clock.c (runs inside and just past the TTL, clock stepped back).

describe("curated tools, prompts and resources from config", () => {
  let conn;
  before(async () => {
    conn = await connectStdio(writeConfig("curated", { extra: `
[[tools]]
name = "customers_by_plan"
description = "How many customers each plan has, optionally from one segment."
statement = "SELECT plan, count(*) AS n FROM customers WHERE segment = $segment GROUP BY plan ORDER BY plan"
[[tools.parameters]]
name = "segment"
type = "string"
description = "Customer segment"
[[prompts]]
name = "review"
description = "Review a customer"
arguments = [ { name = "customer_id", required = true } ]
messages = [ { role = "user", text = "Review customer {{customer_id}}." } ]
[[resources]]
uri = "sluice://e2e/glossary"
name = "glossary"
text = "Revenue is the sum of order totals."
` }));
  });
  after(async () => conn?.close());

  test("a curated tool runs with typed, bound arguments", async () => {
    const tools = (await conn.client.listTools()).tools;
    const tool = tools.find((t) => t.name === "customers_by_plan");
    assert.ok(tool, "listed");
    assert.equal(tool.inputSchema.properties.segment.type, "string");
    const segments = await conn.client.callTool({ name: "customers_by_plan", arguments: { segment: "x' OR '1'='1" } });
    assert.ok(!segments.isError, errorText(segments));
    assert.equal(segments.structuredContent.row_count, 0, "the argument is data, not SQL");
    const bad = await conn.client.callTool({ name: "customers_by_plan", arguments: { segment: 42 } });
    assert.equal(bad.isError, true, "schema validation happens before the statement runs");
  });

  test("config prompts substitute arguments and config resources are served", async () => {
    const p = await conn.client.getPrompt({ name: "review", arguments: { customer_id: "17" } });
    assert.equal(p.messages[0].content.text, "Review customer 17.");
    const r = await conn.client.readResource({ uri: "sluice://e2e/glossary" });
    assert.equal(r.contents[0].text, "Revenue is the sum of order totals.");
  });
});

describe("SQLite engine", () => {
  let conn;
  // high: a filter on a blocked field is high risk (docs/risk.md) and this suite runs it
  before(async () => { conn = await connectStdio(writeConfig("sqlite", { engine: "sqlite", autoApprove: ["low", "medium", "high"] })); });
  after(async () => conn?.close());

  test("validates and executes a join with a blocked field used only in a filter", async () => {
    const code = "SELECT c.plan, count(*) AS orders FROM customers c JOIN orders o ON o.customer_id = c.id WHERE c.ssn IS NOT NULL GROUP BY c.plan ORDER BY c.plan";
    const v = await validate(conn.client, code);
    assert.equal(v.valid, true, JSON.stringify(v.violations));
    const r = await execute(conn.client, code, v.approval_token);
    assert.ok(!r.isError, errorText(r));
    assert.equal(r.structuredContent.row_count, 3);
  });

  test("refuses returning a blocked field", async () => {
    const v = await validate(conn.client, "SELECT name, ssn FROM customers LIMIT 5");
    assert.equal(v.valid, false);
    assert.match(JSON.stringify(v.violations), /ssn/);
  });
});
