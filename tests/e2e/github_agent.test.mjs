// github_agent.test.mjs — issue 26: a scripted agent (no LLM) answers a GitHub question through
// the official SDK client the way a model with a small context would: it reads the fixed context
// (tools/list, start_code_mode), searches, describes the types it needs, validates — a typo first,
// fixed from graphql-js's "Did you mean" — and executes, against GitHub's real GraphQL schema
// (@octokit/graphql-schema) with a local stub answering from generated fixtures
// (bench/tokens/github_graphql_stub.mjs). It never reads code-mode://schema, and what it read in
// all stays small. Also: the million-node query is refused by graphql_max_cost, with its total.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync, readFileSync } from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { writeSurfaces } from "../../bench/tokens/surfaces.mjs";
import { startGithubGraphql } from "../../bench/tokens/github_graphql_stub.mjs";
import { Client, StdioClientTransport } from "./harness.mjs";

const require = createRequire(new URL("../node/package.json", import.meta.url));
const { countTokens } = require("gpt-tokenizer/encoding/o200k_base");
const bin = process.env.SLUICE_BIN;
const work = process.env.SLUICE_E2E_WORK;
let stub, client;
const reads = []; // every MCP request the agent made, by method and name

before(async () => {
  stub = await startGithubGraphql();
  const config = path.join(work, "github-agent.toml");
  writeFileSync(config, readFileSync(writeSurfaces(work).gql, "utf8")
    .replace(/^endpoint = .*$/m, `endpoint = "${stub.url}"`));
  client = new Client({ name: "github-agent", version: "1.0.0" }, { capabilities: {} });
  await client.connect(new StdioClientTransport({ command: bin, args: ["serve", "-c", config, "--stdio"], stderr: "ignore" }));
});

after(async () => {
  await client?.close();
  stub?.stop();
});

// The agent's ledger: what it read, in o200k_base tokens, as bench/tokens counts it.
const ledger = { tokens: 0, largest: 0 };
function see(text) {
  const n = countTokens(text);
  ledger.tokens += n;
  ledger.largest = Math.max(ledger.largest, n);
  return text;
}
const text = (r) => r.content.map((c) => c.text ?? "").join("\n");
async function call(name, args) {
  reads.push(`tools/call ${name}`);
  see(JSON.stringify({ name, arguments: args }));
  const r = await client.callTool({ name, arguments: args });
  see(text(r));
  return r;
}

test("a scripted agent answers a GitHub question by search, describe, validate, execute", async () => {
  // the fixed context
  const { tools } = await client.listTools();
  reads.push("tools/list");
  see(JSON.stringify(tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema }))));
  const prompt = await client.getPrompt({ name: "start_code_mode", arguments: { question: "How many open issues does octo/demo have, and what are the first five titles?" } });
  reads.push("prompts/get start_code_mode");
  for (const m of prompt.messages) see(m.content.type === "resource" ? m.content.resource.text : m.content.text);
  assert.match(prompt.messages.map((m) => m.content.text ?? "").join("\n"), /search and describe/);
  // too large to inline: the instructions (the resource itself) keep the discovery step
  assert.match(prompt.messages[0].content.resource.text, /^1\. Find .* with `search` \{query\}/m);

  // discovery: the repository type, then its issues connection
  const s = text(await call("search", { query: "repository" }));
  assert.match(s, /- Repository \(type, \d+ fields\)/);
  const repo = text(await call("describe", { name: "Repository" }));
  const issues = /- issues IssueConnection!( \([^)]*\))?/.exec(repo);
  assert.ok(issues, "describe Repository shows its issues connection");
  assert.match(issues[0], /states/, "with the states argument");
  const conn = text(await call("describe", { name: "IssueConnection" }));
  assert.match(conn, /- totalCount Int!/);
  assert.match(conn, /- nodes \[Issue\]/);

  // a typo first: refused in graphql-js's words, fixed from the suggestion
  const typo = `query OpenIssues { repository(owner: "octo", name: "demo") { issues(first: 5, states: OPEN) { totalCount nodes { number titel } } } }`;
  const v1 = (await call("validate_code", { code: typo })).structuredContent;
  assert.equal(v1.valid, false);
  const bad = v1.violations.find((x) => x.rule === "FieldsOnCorrectType");
  assert.equal(bad.message, 'Cannot query field "titel" on type "Issue". Did you mean "title" or "state"?'); // graphql-js's words
  const fixed = typo.replace("titel", /Did you mean "(\w+)"/.exec(bad.message)[1]);
  const v2 = (await call("validate_code", { code: fixed })).structuredContent;
  assert.equal(v2.valid, true, JSON.stringify(v2.violations));
  const r = (await call("execute_code", { code: fixed, approval_token: v2.approval_token })).structuredContent;
  const answer = r.value.repository.issues;
  assert.equal(answer.totalCount, 42);
  assert.deepEqual(answer.nodes.map((n) => n.title), ["title 0", "title 1", "title 2", "title 3", "title 4"]);

  // never the whole schema, and little read in all
  assert.ok(!reads.some((x) => x.startsWith("resources/read")), reads.join(", "));
  assert.ok(ledger.tokens < 6000, `the agent read ${ledger.tokens} tokens`);
  assert.ok(ledger.largest < 4000, `one answer was ${ledger.largest} tokens`);
  process.stderr.write(`github agent: ${reads.length} requests, ${ledger.tokens} tokens read (largest ${ledger.largest})\n`);
});

test("the million-node query is refused by graphql_max_cost with its total", async () => {
  const code = `{ repository(owner: "octo", name: "demo") { issues(first: 100) { nodes { comments(first: 100) { nodes { reactions(first: 100) { nodes { content } } } } } } } }`;
  const v = (await client.callTool({ name: "validate_code", arguments: { code } })).structuredContent;
  assert.equal(v.valid, false);
  const cost = v.violations.find((x) => x.rule === "graphql_max_cost");
  assert.ok(cost, JSON.stringify(v.violations));
  const total = Number(/costs (\d+)/.exec(cost.message)[1]);
  assert.ok(total >= 1000000 && total < 1100000, cost.message);
});
