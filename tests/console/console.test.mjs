// console.test.mjs — the admin console end to end in Chromium (playwright-core, the system
// browser): an approval the SDK client is waiting for is approved in the page and the client's
// execute then runs; a rejection in the page makes it fail; a wrong key is refused; the audit
// search, the metrics, the quotas and the configuration pages show what the server did; the policies page
// shows the Cedar set and the route map, and its evaluator answers "would this user be allowed
// to run this code?" with the decision, the determining policies and the facts; the audit
// export downloads the filtered records (JSONL and CSV); every such action is on the trail; a
// program promoted in the "Saved programs" view is in the SDK client's tools/list and runs, and
// once demoted there it is refused with a clear message. Screenshots go to
// the build tree, and to docs/ with SLUICE_UPDATE_SCREENSHOTS=1.
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { after, before, test } from "node:test";
import { connectHttp, errorText, execute, startHttp, validate, work, writeConfig } from "../e2e/codemode_harness.mjs";
import { raw } from "../e2e/harness.mjs";

const require = createRequire(import.meta.url);
const { chromium } = require("../node/node_modules/playwright-core");

const ADMIN_KEY = "console-admin-key-0123456789";
process.env.SLUICE_E2E_ADMIN = ADMIN_KEY;
const shots = path.join(process.env.SLUICE_BUILD_DIR ?? work, "console-screenshots");
const docs = path.join(process.env.SLUICE_SOURCE_DIR ?? "../..", "docs");
let server, conn, browser, page;

async function screenshot(name) {
  mkdirSync(shots, { recursive: true });
  const file = path.join(shots, `console-${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  if (process.env.SLUICE_UPDATE_SCREENSHOTS === "1") copyFileSync(file, path.join(docs, `console-${name}.png`));
}

// Validates a medium-risk read (no LIMIT) and executes it: the SDK client cannot be asked, so an
// approval request is recorded; returns its id and what execute needs.
async function pendingRequest(code) {
  const v = await validate(conn.client, code);
  assert.equal(v.valid, true, JSON.stringify(v.violations));
  const first = await execute(conn.client, code, v.approval_token);
  assert.equal(first.isError, true);
  const id = errorText(first).match(/approval request ([0-9a-f]{32})/)?.[1];
  assert.ok(id, errorText(first));
  return { id, code, token: v.approval_token };
}

before(async () => {
  const src = process.env.SLUICE_SOURCE_DIR ?? "../..";
  const file = writeConfig("console", { autoApprove: ["low"], extra: `programs_file = "console.programs.jsonl"
[admin]
key_env = "SLUICE_E2E_ADMIN"
[policy]
backend = "cedar"
policies = "${src}/examples/policies/seed000.cedar"
entities = "${src}/examples/policies/seed000.entities.json"
[[policy.servers]]
id = "cost-coach:power-user"
groups = ["PowerUsers"]
allow_writes = true
allowed_operations = ["update_budget_note"]
max_rows = 500
[quotas]
validate_per_day = 1000
rows_per_day = 100000
` });
  for (const f of ["", ".head", ".approvals", ".replay"]) rmSync(path.join(work, `console.audit.jsonl${f}`), { force: true });
  for (const f of ["", ".head"]) rmSync(path.join(work, `console.programs.jsonl${f}`), { force: true });
  server = await startHttp(file);
  conn = await connectHttp(server, "alice");
  browser = await chromium.launch({ executablePath: process.env.SLUICE_CHROMIUM,
                                    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
  page = await browser.newPage({ viewport: { width: 1280, height: 860 }, acceptDownloads: true });
  page.on("pageerror", (e) => { throw e; });
});

after(async () => { await browser?.close(); await conn?.close(); server?.stop(); });

test("the console is served with a Content-Security-Policy that allows only its own files", async () => {
  const r = await raw({ port: server.port, method: "GET", path: "/admin/" });
  assert.equal(r.status, 200);
  assert.match(r.headers["content-type"], /^text\/html/);
  assert.match(r.headers["content-security-policy"], /script-src 'self'/);
  assert.match(r.headers["content-security-policy"], /frame-ancestors 'none'/);
  assert.ok(!/<script>/.test(r.body), "no inline script");
  const data = await raw({ port: server.port, method: "GET", path: "/admin/api/approvals" });
  assert.equal(data.status, 401, "the console's data needs the administrator key");
});

test("a wrong key is refused in the page", async () => {
  await page.goto(`http://127.0.0.1:${server.port}/admin/`);
  await page.fill("#key", "not-the-admin-key-at-all");
  await page.click("#signin-form button[type=submit]");
  await page.waitForFunction(() => document.querySelector("#signin-error").textContent.length > 0);
  assert.match(await page.textContent("#signin-error"), /not the administrator key/);
  assert.equal(await page.isVisible("#tabs"), false);
});

test("approve in the browser: the SDK client's execute then runs", async () => {
  const req = await pendingRequest("SELECT id, name, segment FROM customers ORDER BY id");
  await page.fill("#key", ADMIN_KEY);
  await page.fill("#who", "it-admin");
  await page.click("#signin-form button[type=submit]");
  const card = page.locator(`article[data-id="${req.id}"]`);
  await card.waitFor();
  assert.match(await card.textContent(), /medium risk/);
  assert.match(await card.textContent(), /alice/);
  assert.equal(await card.locator("pre.code").textContent(), req.code);
  assert.ok(await card.locator("pre.code .tok-kw").count() >= 3, "the code is highlighted");
  // DuckDB's estimate beside the code (issue 24): what the approval, and its token, is for
  const estimate = await card.locator("p.estimate").textContent();
  assert.match(estimate, /DuckDB estimate\s+~[\d,]+ rows · [\d,]+ rows through the plan/);
  assert.match(estimate, /5,000 rows/); // every customer: the table's own count
  await screenshot("approvals");
  await card.locator("button.approve").click();
  await card.waitFor({ state: "detached" });
  const r = await execute(conn.client, req.code, req.token);
  assert.ok(!r.isError, errorText(r));
  assert.ok(r.structuredContent.rows.length > 10);
});

test("reject in the browser: the execute is refused", async () => {
  const req = await pendingRequest("SELECT id, name FROM customers ORDER BY name");
  await page.click('nav button[data-tab="approvals"]');
  const card = page.locator(`article[data-id="${req.id}"]`);
  await card.waitFor();
  await card.locator("button.reject").click();
  await card.waitFor({ state: "detached" });
  const r = await execute(conn.client, req.code, req.token);
  assert.equal(r.isError, true);
  assert.match(errorText(r), /rejected by it-admin/);
});

test("the audit trail shows the decisions, and its search narrows it", async () => {
  await page.click('nav button[data-tab="audit"]');
  await page.waitForSelector("#audit-table tbody tr");
  const all = await page.locator("#audit-table tbody tr").count();
  await page.fill("#audit-search", "it-admin");
  const rows = await page.locator("#audit-table tbody tr").allTextContents();
  assert.ok(rows.length >= 2 && rows.length < all, `${rows.length} of ${all}`);
  assert.equal(rows.filter((t) => t.includes("approval_decision")).length, 2, rows.join("\n"));
  await page.fill("#audit-search", "");
  await page.selectOption("#audit-event", "execute");
  const runs = await page.locator("#audit-table tbody tr").allTextContents();
  assert.ok(runs.length >= 1 && runs.every((t) => t.includes("execute")));
  await page.selectOption("#audit-event", "");
  await screenshot("audit");
});

test("metrics at a glance and the configuration as loaded", async () => {
  await page.click('nav button[data-tab="metrics"]');
  await page.waitForSelector("#tiles .tile");
  const tiles = Object.fromEntries((await page.locator("#tiles .tile").evaluateAll((ts) =>
    ts.map((t) => [t.querySelector(".k").textContent, t.querySelector(".v").textContent]))));
  assert.equal(Number(tiles["approved"]), 1);
  assert.equal(Number(tiles["rejected"]), 1);
  assert.ok(Number(tiles["approvals asked"]) >= 2);
  assert.ok(Number(tiles["executions run"]) >= 1);
  await screenshot("metrics");
  await page.click('nav button[data-tab="config"]');
  await page.waitForSelector("#config-body dl");
  const text = await page.textContent("#config-body");
  assert.match(text, /blocked_fields/);
  assert.match(text, /ssn, email/);
  assert.ok(!text.includes(ADMIN_KEY), "a secret is shown");
  await screenshot("config");
});

test("the quotas page lists each caller's usage, limit and reset time", async () => {
  await page.click('nav button[data-tab="quotas"]');
  await page.waitForSelector("#quota-table tbody tr");
  const rows = await page.locator("#quota-table tbody tr").evaluateAll((trs) =>
    trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent)));
  const v = rows.find((r) => r[0] === "alice" && r[2] === "validate_per_day");
  assert.ok(v, JSON.stringify(rows));
  assert.ok(Number(v[3]) >= 2, `alice validated at least twice: ${v}`);
  assert.equal(v[4], "1000");
  assert.match(v[5], /^\d{4}-\d\d-\d\dT00:00:00Z$/);
  const counted = rows.find((r) => r[0] === "alice" && r[2] === "execute_per_day");
  assert.ok(counted && counted[4] === "none", "a quota without a limit is counted and shown as none");
  assert.equal(await page.isVisible("#no-quotas"), false);
  await screenshot("quotas");
});

async function evaluateInPage(user, groups, code) {
  await page.fill("#eval-user", user);
  await page.fill("#eval-groups", groups);
  await page.fill("#eval-code", code);
  const answered = page.waitForResponse((r) => r.url().includes("/admin/api/evaluate"));
  await page.click("#eval-run");
  await answered;
  await page.waitForSelector("#eval-result:not([hidden])");
  return { decision: await page.textContent("#eval-decision"), route: await page.textContent("#eval-route"),
           policies: await page.textContent("#eval-policies"), facts: JSON.parse(await page.textContent("#eval-facts")),
           rules: await page.textContent("#eval-rules") };
}

test("the policies page: the Cedar set in effect, the route map, and the evaluator", async () => {
  await page.click('nav button[data-tab="policies"]');
  await page.waitForFunction(() => document.querySelector("#policy-text").textContent.includes("permit ("));
  assert.match(await page.textContent("#policy-meta"), /backend: cedar/);
  const routes = await page.locator("#route-map tbody tr").allTextContents();
  assert.ok(routes.some((r) => r.includes("cost-coach:power-user") && r.includes("PowerUsers") && r.includes("update_budget_note")), routes.join("\n"));
  assert.ok(routes.some((r) => r.includes("everyone else")));

  const leak = await evaluateInPage("alice", "StandardUsers", "SELECT name, ssn FROM customers LIMIT 3");
  assert.equal(leak.decision, "deny");
  assert.match(leak.policies, /forbid/);
  assert.deepEqual(leak.facts.context.script.outputFields.includes("customers.ssn") || leak.facts.context.script.outputFields.includes("ssn"), true, JSON.stringify(leak.facts.context.script.outputFields));
  assert.match(leak.rules, /blocked field/);

  const read = await evaluateInPage("alice", "StandardUsers", "SELECT plan, count(*) AS n FROM customers GROUP BY plan");
  assert.equal(read.decision, "allow");
  assert.match(read.policies, /permit/);
  assert.equal(read.facts.action.id ?? read.facts.action, read.facts.action.id ?? read.facts.action);
  assert.match(JSON.stringify(read.facts.action), /Read/);

  const stranger = await evaluateInPage("mallory", "Contractors", "SELECT plan FROM customers LIMIT 1");
  assert.equal(stranger.decision, "deny");
  assert.match(stranger.policies, /no permit matched/);

  const power = await evaluateInPage("pat", "PowerUsers", "SELECT plan FROM customers LIMIT 1");
  assert.match(power.route, /route cost-coach:power-user/);
  await screenshot("policies");
});

async function download(button) {
  const pending = page.waitForEvent("download");
  await page.click(button);
  const d = await pending;
  const { readFileSync } = await import("node:fs");
  return { name: d.suggestedFilename(), text: readFileSync(await d.path(), "utf8") };
}

test("audit export: the filtered records as JSONL and CSV, and the export is itself audited", async () => {
  await page.click('nav button[data-tab="audit"]');
  await page.waitForSelector("#audit-table tbody tr");
  await page.fill("#audit-search", "it-admin");
  const shown = await page.locator("#audit-table tbody tr").count();
  const jsonl = await download("#audit-export-jsonl");
  assert.equal(jsonl.name, "sluice-audit.jsonl");
  const records = jsonl.text.trim().split("\n").map((l) => JSON.parse(l));
  assert.equal(records.length, shown, "the export holds the records the page shows");
  assert.ok(records.every((r) => JSON.stringify(r).toLowerCase().includes("it-admin")));
  assert.ok(records.some((r) => r.event === "approval_decision"));
  const csv = await download("#audit-export-csv");
  assert.equal(csv.name, "sluice-audit.csv");
  const lines = csv.text.trim().split("\r\n");
  assert.equal(lines[0], "seq,ts,event,action,decision,user,session,request_id,code,detail");
  // the page's rows, and the JSONL export's own record (by it-admin) written since
  assert.equal(lines.length - 1, shown + 1);
  assert.match(lines[1], /"admin","audit_export",.*"it-admin"/);
  await page.fill("#audit-search", "audit_export");
  await page.click("#audit-refresh");
  await page.waitForFunction(() => document.querySelectorAll("#audit-table tbody tr").length >= 2);
  const trail = await page.locator("#audit-table tbody tr").allTextContents();
  assert.ok(trail.every((t) => t.includes("it-admin")), trail.join("\n"));
  await page.fill("#audit-search", "policy_evaluate");
  assert.ok(await page.locator("#audit-table tbody tr").count() >= 4, "each evaluation is on the trail");
  await page.fill("#audit-search", "");
});

test("the evaluator and the export need the administrator key; a CSV field is never a formula", async () => {
  for (const p of ["/admin/api/policies", "/admin/api/evaluate?user=a&code=SELECT%201", "/admin/api/audit/export?format=csv"]) {
    const r = await raw({ port: server.port, method: "GET", path: p });
    assert.equal(r.status, 401, p);
  }
  const auth = { Authorization: `Bearer ${ADMIN_KEY}` };
  const ev = await raw({ port: server.port, method: "GET", headers: auth,
                         path: `/admin/api/evaluate?as=${encodeURIComponent("=HYPERLINK(\"x\")")}&user=alice&code=SELECT%201` });
  assert.equal(ev.status, 200, ev.body);
  const csv = await raw({ port: server.port, method: "GET", headers: auth, path: "/admin/api/audit/export?format=csv&q=HYPERLINK" });
  assert.equal(csv.status, 200);
  assert.match(csv.headers["content-type"], /^text\/csv/);
  assert.match(csv.body, /"'=HYPERLINK\(""x""\)"/);
  assert.doesNotMatch(csv.body, /(^|,)"=HYPERLINK/m);
  const bad = await raw({ port: server.port, method: "GET", headers: auth, path: "/admin/api/audit/export?format=xml" });
  assert.equal(bad.status, 400);
});

test("saved programs: promote in the page, run it through the SDK client, demote it, see the refusal", async () => {
  await page.click('nav button[data-tab="programs"]');
  await page.locator("#no-programs").waitFor();
  const code = "SELECT count(*) AS n FROM customers WHERE segment = $segment";
  // not valid: the page says why, nothing is saved
  await page.fill("#promote-name", "leaky_names");
  await page.fill("#promote-code", "SELECT name, email FROM customers LIMIT 5");
  await page.fill("#promote-variables", "{}");
  await page.fill("#promote-groups", "StandardUsers");
  await page.click("#promote-run");
  await page.waitForFunction(() => document.querySelector("#promote-error").textContent.length > 0);
  assert.match(await page.textContent("#promote-error"), /not promoted: the program is not valid: .*email/);
  await page.fill("#promote-variables", "{not json");
  await page.click("#promote-run");
  await page.waitForFunction(() => /not JSON/.test(document.querySelector("#promote-error").textContent));
  // valid: saved as version 1, with its typed parameter and the engine's estimate beside the code
  await page.fill("#promote-name", "segment_count");
  await page.fill("#promote-description", "How many customers a segment has");
  await page.fill("#promote-code", code);
  await page.fill("#promote-variables", '{"segment": "Enterprise"}');
  await page.click("#promote-run");
  const card = page.locator('article.program[data-name="segment_count"]');
  await card.waitFor();
  assert.match(await card.locator(".badge.status").textContent(), /runs/);
  assert.match(await card.locator(".badge.version").textContent(), /v1/);
  assert.match(await card.textContent(), /promoted by it-admin/);
  assert.equal(await card.locator("pre.code").textContent(), code);
  assert.match(await card.locator("p.estimate").textContent(), /DuckDB estimate\s+~[\d,]+ rows/);
  assert.match(await card.locator("table.params").textContent(), /segment\s*string/);
  await screenshot("programs");
  // the SDK client sees it in tools/list and runs it by name, with no validate and no approval
  const tool = (await conn.client.listTools()).tools.find((t) => t.name === "segment_count");
  assert.ok(tool, "listed for alice");
  assert.deepEqual(tool.inputSchema.required, ["segment"]);
  const run = await conn.client.callTool({ name: "segment_count", arguments: { segment: "Enterprise" } });
  assert.ok(!run.isError, errorText(run));
  assert.ok(run.structuredContent.rows[0][0] > 0);
  // demoted in the page: gone from tools/list, and a call by name is refused and says why
  await card.locator("input.reason").fill("replaced by the segments report");
  await card.locator("button.demote").click();
  await page.waitForFunction(() => /demoted/.test(document.querySelector('article.program[data-name="segment_count"] .badge.status')?.textContent ?? ""));
  assert.match(await card.locator("p.reason").textContent(), /demoted by it-admin \(version 2\): replaced by the segments report/);
  await screenshot("programs-demoted");
  assert.equal((await conn.client.listTools()).tools.find((t) => t.name === "segment_count"), undefined);
  const refused = await conn.client.callTool({ name: "segment_count", arguments: { segment: "Enterprise" } });
  assert.ok(refused.isError);
  assert.match(errorText(refused), /was demoted by it-admin \(version 2\): replaced by the segments report/);
  // both on the audit trail, by the administrator who signed in
  await page.click('nav button[data-tab="audit"]');
  await page.fill("#audit-search", "segment_count");
  await page.waitForFunction(() => document.querySelectorAll("#audit-table tbody tr").length >= 3);
  const events = await page.locator("#audit-table tbody td:nth-child(3)").allTextContents();
  assert.ok(events.includes("promote") && events.includes("demote"), events.join(","));
  await page.fill("#audit-search", "");
});
