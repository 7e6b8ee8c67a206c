// mcp_canary.mjs — the canary property test of MCP composition (issue 25): JavaScript plans that
// read blocked fields through mcp.call from a downstream MCP server (canary_downstream.mjs, the
// official SDK; over stdio and, in refuse mode, Streamable HTTP) whose every answer shape carries
// canaries: structuredContent, text content that is JSON, nesting, arrays, JSON inside a string
// field, keys in other cases, isError text, a thrown handler error, a JSON-RPC error, resource
// links, notifications on the way. The plans come from the shared generator
// (tests/node/js_canary_gen.mjs: the same transformation families as the OpenAPI run), with heads
// that read the records through each shape, plus fixed regression plans (one per shape found
// leaking). Each runs validate_code + execute_code through `sluice serve` over HTTP, driven by
// the official SDK client (high-risk plans approved by elicitation), in three configurations:
// the fields output-blocked (strip, refuse) and internal-blocked (stripped at the boundary).
// Twin-upstream noninterference: plans (fixed and generated) that hand what they read to a second
// server ("sink", canary_downstream.mjs --record) must never send it a canary form (the sink's
// record of its arguments is scanned after the run; with no blocked field configured it catches
// 21 of 21 calls, reversals and char codes included).
// Scanned for every canary form the generator knows: every response, tools/list, resources and
// prompts sluice serves, sluice's log and every audit line. Untainted plans count over-blocking
// (refused or redacted for a blocked field).
// usage: node mcp_canary.mjs COUNT SEED   (env as ctest_mcp_canary.sh sets it)
// prints the counts as JSON; exit 1 on a counterexample.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { API_KEYS, work, startHttp, validate, execute, connectApproving } from "../e2e/codemode_harness.mjs";
import { gatewayHead, startHttpDownstream } from "./jsmcp_helpers.mjs";
import { generator, jsonScanner, withoutRequestIds } from "../node/js_canary_gen.mjs";

const [countArg, seedArg] = process.argv.slice(2);
const COUNT = Number(countArg ?? 60);
const SEED = Number(seedArg ?? 1);
const here = path.dirname(new URL(import.meta.url).pathname);

const call = (tool, args = "{}") => `mcp.call("people", "${tool}", ${args})`;
// Each head leaves the records in `us` through one answer shape (the attacker's ways in).
const heads = [
  `const us = (await ${call("list_people")}).items;\n`,
  `const us = await Promise.all(["u1", "u2"].map(id => ${call("get_person", "{ id }")}));\n`,
  `const us = (await ${call("team")}).org.teams.map(t => t.lead);\n`,
  `const us = (await ${call("team")}).org.teams.flatMap(t => t.members.map(m => m.person));\n`,
  `const us = JSON.parse((await ${call("wrapped")}).body);\n`,
  `const us = (await ${call("odd_keys")}).items.map(u => ({ id: u.id, name: u.name, team: u.team, ssn: u.SSN, salary: u.Salary }));\n`,
  ...["person_error", "person_throw", "rpc_error"].map((tool) =>
    `let us = [];\ntry { await ${call(tool)}; } catch (e) { const m = String(e.message); us = JSON.parse(m.slice(m.indexOf("["), m.lastIndexOf("]") + 1)); }\n`),
];
const { gen, leaks, forms } = generator(SEED, {
  head: heads,
  echo: (e) => `await ${call("echo", `{ v: String(${e}) }`)}; return 1;`,
});
const { texts, leaksIn } = jsonScanner(leaks);
// twin-upstream noninterference: plans that hand what they computed to a second server ("sink",
// which records every argument it gets): no canary form may reach it
const sinkCall = (e) => `await mcp.call("sink", "echo", { v: String(${e}) }); return 1;`;
const crossGen = generator(SEED + 2, { head: heads, echo: sinkCall }).gen;
const crossFixed = [
  `const p = await ${call("get_person", '{ id: "u1" }')}; ${sinkCall("p.ssn")}`,
  `const p = await ${call("get_person", '{ id: "u1" }')}; ${sinkCall("p.salary")}`,
  `const us = (await ${call("list_people")}).items; ${sinkCall('us.map(u => u.ssn.split("").reverse().join("")).join(";")')}`,
  `const us = (await ${call("team")}).org.teams.map(t => t.lead); ${sinkCall('[...us[0].ssn].map(c => c.charCodeAt(0)).join(",")')}`,
  `const w = (await ${call("wrapped")}).body; ${sinkCall("w")}`,
  `const us = (await ${call("odd_keys")}).items; ${sinkCall("JSON.stringify(us)")}`,
  `let m = ""; try { await ${call("person_error")}; } catch (e) { m = e.message; } ${sinkCall("m")}`,
];
// untainted plans: the same shapes through heads that read no blocked field by name
const cleanGen = generator(SEED + 1, { head: heads.filter((h) => !/SSN|Salary/.test(h)), echo: () => "return 1;" }).gen;

// Fixed regression plans: each shape that leaked once, run every time.
const regressions = [
  `try { await ${call("person_error")}; } catch (e) { return e.message; }`,
  `try { await ${call("person_throw")}; } catch (e) { return String(e); }`,
  `try { await ${call("rpc_error")}; } catch (e) { return [e.name, e.message]; }`,
  `await ${call("person_error")};`,
  `await ${call("rpc_error")}; return 1;`,
  `try { await ${call("person_throw")}; } catch { } return 1;`,
  `return JSON.parse((await ${call("wrapped")}).body)[0].ssn;`,
  `return JSON.parse((await ${call("wrapped")}).body);`,
  `return (await ${call("wrapped")}).body;`,
  `return (await ${call("odd_keys")}).items;`,
  `return (await ${call("odd_keys")}).items.map(u => u.SSN + ":" + u.Salary);`,
  `return await ${call("links")};`,
  `return await ${call("list_people")};`,
  `return Object.entries(await ${call("get_person", '{ id: "u1" }')});`,
  `return await ${call("team")};`,
  `const p = await ${call("get_person", '{ id: "u1" }')}; return await ${call("echo", "{ v: p.ssn }")};`,
];

const sinkFile = path.join(work, "mcp-canary-sink.jsonl");
rmSync(sinkFile, { force: true });

function config(name, mode) {
  API_KEYS.alice = "alice-key-0123456789abcdef";
  process.env.SLUICE_E2E_KEY_ALICE = API_KEYS.alice;
  const blocked = mode === "internal" ? 'openapi_internal_blocked_fields = ["ssn", "salary"]'
                                      : `openapi_output_blocked_fields = ["ssn", "salary"]\nopenapi_blocked_output = "${mode}"`;
  const file = path.join(work, `${name}.toml`);
  writeFileSync(file, `${gatewayHead({ serverId: "mcp-canary", blocked, audit: `${name}.audit.jsonl` })}[[code_mode.mcp_servers]]
name = "people"
${mode === "refuse" ? `url = "${peopleUrl}"` : `command = ["${process.execPath}", "${here}/canary_downstream.mjs", "${SEED}"]`}
allowed_tools = ["*"]
timeout_seconds = 10
startup_timeout_seconds = 60
[[code_mode.mcp_servers]]
name = "sink"
command = ["${process.execPath}", "${here}/canary_downstream.mjs", "${SEED}", "--record", "${sinkFile}"]
allowed_tools = ["echo"]
timeout_seconds = 10
startup_timeout_seconds = 60
`);
  for (const f of readdirSync(work)) if (f.startsWith(`${name}.audit.jsonl`)) rmSync(path.join(work, f));
  return file;
}

const counts = { seed: SEED, plans: 0, regression_plans: 0, untainted_plans: 0, answered: 0, refused_or_failed: 0,
                 counterexamples: 0, over_blocked_untainted: 0, over_blocked_json_text: 0, surface_counterexamples: 0, log_counterexamples: 0,
                 audit_lines: 0, audit_counterexamples: 0, forms: forms.length, cross_plans: 0, sink_calls: 0,
                 sink_counterexamples: 0 };
const tainted = Array.from({ length: COUNT }, () => gen(true));
const cross = [...crossFixed, ...Array.from({ length: Math.max(1, COUNT >> 1) }, () => crossGen(true))];
const clean = Array.from({ length: Math.max(1, COUNT >> 2) }, () => cleanGen(false));

function report(kind, code, seen) {
  counts.counterexamples++;
  if (counts.counterexamples <= Number(process.env.MCP_CANARY_SHOW ?? 5))
    console.error(`counterexample (${kind}):\n${code}\n -> ${JSON.stringify(texts(seen).filter((t) => leaks(t))).slice(0, 600)}`);
}

async function runOne(client, code) {
  const v = await validate(client, code);
  if (!v.valid) return { v, seen: [v] };
  const r = await execute(client, code, v.approval_token);
  return { v, r, seen: [v, r] };
}

// What sluice serves besides the tools' answers: tools/list, its resources (the catalog of the
// downstream's tools) and prompts.
async function surface(client) {
  const seen = [await client.listTools()];
  const res = await client.listResources().catch((e) => ({ error: String(e) }));
  seen.push(res);
  for (const r of res.resources ?? []) seen.push(await client.readResource({ uri: r.uri }).catch((e) => String(e)));
  const prompts = await client.listPrompts().catch((e) => ({ error: String(e) }));
  seen.push(prompts);
  return seen;
}

// In refuse mode the downstream is reached over Streamable HTTP (SSE answers), else over stdio.
const { child: peopleHttp, url: peopleUrl } = await startHttpDownstream("canary_downstream.mjs", [String(SEED)]);
process.on("exit", () => peopleHttp.kill("SIGTERM"));

const audits = [];
const logs = [];
for (const mode of ["strip", "refuse", "internal"]) {
  const name = `mcp-canary-${mode}`;
  const server = await startHttp(config(name, mode));
  audits.push(path.join(work, `${name}.audit.jsonl`));
  const client = await connectApproving(server);
  try {
    if (leaksIn(await surface(client))) {
      counts.surface_counterexamples++;
      console.error(`surface counterexample (${name}): tools/list, resources or prompts`);
    }
    for (const [list, kind] of [[regressions, "regression"], [tainted, "plan"]]) {
      for (const code of list) {
        const { r, seen } = await runOne(client, code);
        counts[kind === "plan" ? "plans" : "regression_plans"]++;
        if (!r || r.isError) counts.refused_or_failed++; else counts.answered++;
        if (leaksIn(seen)) report(`${kind}, ${name}`, code, seen);
      }
    }
    for (const code of cross) {
      const { seen } = await runOne(client, code);
      counts.cross_plans++;
      if (leaksIn(seen)) report(`cross, ${name}`, code, seen);
    }
    for (const code of clean) {
      const { v, seen } = await runOne(client, code);
      counts.untainted_plans++;
      if (leaksIn(seen)) report(`untainted, ${name}`, code, seen);
      const text = JSON.stringify(seen);
      if (code.includes('"wrapped"') && /redacted|blocked_output|blocked field/.test(text)) {
        counts.over_blocked_json_text++; // by design: a JSON text holding a blocked field is tainted whole
      } else if (!v.valid || /redacted|blocked_output|blocked field/.test(text)) {
        counts.over_blocked_untainted++;
        if (counts.over_blocked_untainted <= 3) console.error(`over-blocked (${name}):\n${code}\n -> ${text.slice(0, 400)}`);
      }
    }
  } finally {
    await client.close();
    server.stop();
    logs.push(server.log());
  }
}
for (const log of logs)
  for (const line of log.split("\n"))
    if (leaks(withoutRequestIds(line))) {
      counts.log_counterexamples++;
      if (counts.log_counterexamples <= 3) console.error(`log counterexample:\n${line.slice(0, 600)}`);
    }
for (const file of audits) {
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (line.trim() === "") continue;
    counts.audit_lines++;
    if (leaksIn(JSON.parse(line))) {
      counts.audit_counterexamples++;
      if (counts.audit_counterexamples <= 5) console.error(`audit counterexample (${file}):\n${line.slice(0, 600)}`);
    }
  }
}
for (const line of existsSync(sinkFile) ? readFileSync(sinkFile, "utf8").split("\n") : []) {
  if (line.trim() === "") continue;
  counts.sink_calls++;
  if (leaks(line)) {
    counts.sink_counterexamples++;
    if (counts.sink_counterexamples <= 5) console.error(`sink counterexample (an argument the second server got):\n${line.slice(0, 600)}`);
  }
}
console.log(JSON.stringify(counts));
const bad = counts.counterexamples + counts.sink_counterexamples + counts.audit_counterexamples + counts.surface_counterexamples + counts.log_counterexamples;
process.exit(bad === 0 && counts.audit_lines > 0 ? 0 : 1);
