// github_rest.test.mjs — GitHub's REST API as sluice serves it (see ctest_github_rest.sh): the
// real @octokit/openapi api.github.com spec (~1,000 operations, 13 MB) behind `sluice serve
// --stdio`, driven by the official SDK client, with a local stub answering for api.github.com.
// What validate says is what the run does: a query parameter the operation lacks is refused at
// validate with the nearest name; GitHub's contents/{path} (x-multi-segment) takes
// "docs/README.md" as a literal and from a variable, while "..", "%2e" and escapes from the
// template are refused on both sides and never reach the upstream.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { work, connectStdio, validate, execute, errorText } from "./codemode_harness.mjs";

const require = createRequire(new URL("../node/package.json", import.meta.url));
const spec = require.resolve("@octokit/openapi/generated/api.github.com.json");

const seen = []; // every path and query the stub was asked for
let stub, session;

function answer(url) {
  const u = new URL(url, "http://stub");
  if (u.pathname === "/repos/octo/hello/issues")
    return [{ number: 7, title: "Crash on start", state: u.searchParams.get("state") ?? "open" }];
  if (u.pathname === "/repos/octo/hello/contents/docs/README.md")
    return { type: "file", name: "README.md", path: "docs/README.md", size: 12 };
  return null;
}

before(async () => {
  stub = http.createServer((req, res) => {
    seen.push(req.url);
    const body = answer(req.url);
    res.writeHead(body ? 200 : 404, { "content-type": "application/json" });
    res.end(JSON.stringify(body ?? { message: "Not Found" }));
  });
  await new Promise((r) => stub.listen(0, "127.0.0.1", r));
  const config = path.join(work, "github-rest.toml");
  writeFileSync(config, `[server]\nname = "github-rest"\n\n[database]\nengine = "openapi"\npath = "${spec}"\n` +
    `endpoint = "http://127.0.0.1:${stub.address().port}"\n\n[identity]\nuser = "agent"\n\n` +
    `[code_mode]\nenabled = true\nlanguages = ["javascript"]\ntoken_secret_file = "${path.join(work, "token.key")}"\n` +
    `auto_approve_levels = ["low", "medium"]\n`);
  session = await connectStdio(config);
});

after(async () => {
  await session?.close();
  stub?.close();
});

async function run(code, variables) {
  const v = await validate(session.client, code, variables);
  assert.equal(v.valid, true, `${code}: ${JSON.stringify(v.violations)}`);
  return execute(session.client, code, v.approval_token, variables);
}

test("a query parameter the operation lacks is refused at validate, with the nearest name", async () => {
  const code = 'return await api.get("/repos/octo/hello/issues", { status: "open" })';
  const v = await validate(session.client, code);
  assert.equal(v.valid, false);
  const q = v.violations.find((x) => x.rule === "openapi_query_parameter");
  assert.ok(q, JSON.stringify(v.violations));
  assert.match(q.message, /'status' at line 1 is not a query parameter of issues\/list-for-repo; did you mean 'state'\?/);
  const before = seen.length;
  const r = await run('return await api.get("/repos/octo/hello/issues", { state: "open" })');
  assert.equal(r.isError, undefined, errorText(r));
  assert.deepEqual(r.structuredContent.value, [{ number: 7, title: "Crash on start", state: "open" }]);
  assert.deepEqual(seen.slice(before), ["/repos/octo/hello/issues?state=open"]);
});

test("contents/{path} takes docs/README.md, as a literal and from a variable", async () => {
  const before = seen.length;
  let r = await run('return (await api.get("/repos/octo/hello/contents/docs/README.md")).path');
  assert.equal(r.structuredContent?.value, "docs/README.md", errorText(r));
  r = await run("return (await api.get(`/repos/octo/hello/contents/${args.p}`)).path", { p: "docs/README.md" });
  assert.equal(r.structuredContent?.value, "docs/README.md", errorText(r));
  assert.deepEqual(seen.slice(before), Array(2).fill("/repos/octo/hello/contents/docs/README.md"));
});

test("'..', '%2e' and escapes from the template are refused on both sides, never sent", async () => {
  const before = seen.length;
  for (const p of ["../../admin", "docs/../../x", "%2e%2e/x", "docs/%2e%2e", "docs//x", "./x", "docs/"]) {
    // a literal: validate refuses it
    const v = await validate(session.client, `return await api.get("/repos/octo/hello/contents/${p}")`);
    assert.equal(v.valid, false, `literal ${p}`);
    // from a variable: validate cannot know, the run refuses the call
    const r = await run("return await api.get(`/repos/octo/hello/contents/${args.p}`)", { p });
    assert.equal(r.isError, true, `variable ${p}: ${errorText(r)}`);
    assert.match(errorText(r), /refused|left its template|matches no operation/, p);
  }
  assert.deepEqual(seen.slice(before), [], "nothing refused reached the upstream");
});

// Validate approves each call site's operation from its template; execute once checked only that
// a call's operation was in the approved set. A value with '/' (raw or encoded) then moved a
// call to ANOTHER approved operation: `/repos/${o}/${r}` with r = "hello/issues" ran
// issues/list-for-repo. Each call must be the operation validated at its site.
test("a ${...} value never moves a call to another operation, approved or not", async () => {
  const before = seen.length;
  const code = "const a = await api.get(`/repos/octo/${args.r}`);\n" +
    "const b = await api.get(\"/repos/octo/hello/issues\");\nreturn [a, b]";
  for (const r of ["hello/issues", "hello%2Fissues", "hello%252Fissues", "hello/./issues",
                   "x/../hello/issues", "hello/issues?state=all", "hello/issues#x", "hello\\issues"]) {
    const res = await run(code, { r });
    assert.equal(res.isError, true, `r = ${r}: ${JSON.stringify(res.structuredContent)}`);
    assert.match(errorText(res), /refused|its own parameter|template/, r);
  }
  // a spanning parameter (x-multi-segment) takes '/', but never another operation's suffix
  const branch = "return await api.get(`/repos/octo/hello/branches/${args.b}`)";
  for (const b of ["main/protection", "main/protection/"]) {
    const res = await run(branch, { b });
    assert.equal(res.isError, true, `b = ${b}: ${errorText(res)}`);
  }
  assert.deepEqual(seen.slice(before), [], "no escaped call reached the upstream");
  const res = await run(branch, { b: "feature/x" });
  assert.equal(res.isError, true, "the stub has no such branch: 404");
  assert.deepEqual(seen.slice(before), ["/repos/octo/hello/branches/feature/x"]);
});

test("discovery answers about GitHub are small: describe names its types", async () => {
  const d = await session.client.callTool({ name: "describe", arguments: { name: "issues/list-for-repo" } });
  const text = d.content.map((c) => c.text).join("\n");
  assert.match(text, /api\.get\(`\/repos\/\$\{owner\}\/\$\{repo\}\/issues`, query: \{ milestone\?: string; state\?: "open" \| "closed" \| "all";/);
  assert.match(text, /Promise<issue\[\]>/);
  assert.ok(text.length < 2000, `describe is ${text.length} characters`);
  const t = await session.client.callTool({ name: "describe", arguments: { name: "issue" } });
  assert.match(t.content.map((c) => c.text).join("\n"), /type issue = \{ id: number;/);
});
