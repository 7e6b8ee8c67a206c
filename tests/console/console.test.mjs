// console.test.mjs — the admin console end to end in Chromium (playwright-core, the system
// browser): an approval the SDK client is waiting for is approved in the page and the client's
// execute then runs; a rejection in the page makes it fail; a wrong key is refused; the audit
// search, the metrics and the configuration pages show what the server did. Screenshots go to
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
  const file = writeConfig("console", { autoApprove: ["low"], extra: `
[admin]
key_env = "SLUICE_E2E_ADMIN"
` });
  for (const f of ["", ".head", ".approvals", ".replay"]) rmSync(path.join(work, `console.audit.jsonl${f}`), { force: true });
  server = await startHttp(file);
  conn = await connectHttp(server, "alice");
  browser = await chromium.launch({ executablePath: process.env.SLUICE_CHROMIUM,
                                    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
  page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
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
