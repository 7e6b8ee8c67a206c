// github_rest_stub.mjs — a local stand-in for api.github.com: every GET of @octokit/openapi's
// api.github.com spec answered from a fixture generated from the operation's own 200 response
// schema, so the token benchmark's REST questions run both agents (the naive tool-per-operation
// mirror and sluice's code mode) against GitHub's shapes without the network. The fixture is a
// pure function of the schema, the property names and the request:
//   - an object carries its schema's REQUIRED properties only: a lower bound on what GitHub sends
//     (real answers also carry most optional ones), so the naive side's counts are not inflated;
//   - an array at the top has per_page items (else 3, at most 100), a nested one 2;
//   - Int/number: 1 + index, boolean: index is even, enum: its first value, string by format
//     (date-time, uri, email) else "<property> <index>"; oneOf/anyOf take the first non-null
//     alternative, allOf merges; a $ref seen on the way down (a recursive type) ends as null.
//   node github_rest_stub.mjs [--port N]     prints "listening N"
// As a module: startGithubRest() -> { url, port, stop, seen }.
import http from "node:http";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const require = createRequire(new URL("../../tests/node/package.json", import.meta.url));
export const githubSpecPath = require.resolve("@octokit/openapi/generated/api.github.com.json");

const resolveRef = (spec, ref) => ref.slice(2).split("/").reduce((o, k) => o?.[k.replace(/~1/g, "/").replace(/~0/g, "~")], spec);

export function fixture(spec, schema, name, index, size, seen = new Set()) {
  if (schema?.$ref) {
    if (seen.has(schema.$ref)) return null;
    return fixture(spec, resolveRef(spec, schema.$ref), name, index, size, new Set([...seen, schema.$ref]));
  }
  if (!schema) return null;
  if (schema.allOf)
    return Object.assign({}, ...schema.allOf.map((s) => fixture(spec, s, name, index, size, seen) ?? {}));
  const alt = schema.oneOf ?? schema.anyOf;
  if (alt) return fixture(spec, alt.find((s) => s.type !== "null" && !s.nullable) ?? alt[0], name, index, size, seen);
  if (schema.enum) return schema.enum.find((v) => v !== null) ?? null;
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  if (type === "array")
    return Array.from({ length: size }, (_, i) => fixture(spec, schema.items, name, i, 2, seen));
  if (type === "object" || schema.properties) {
    const out = {};
    for (const k of schema.required ?? []) out[k] = fixture(spec, schema.properties?.[k], k, index, 2, seen);
    return out;
  }
  switch (type) {
    case "integer": case "number": return 1 + index;
    case "boolean": return index % 2 === 0;
    case "string":
      if (schema.format === "date-time") return new Date(Date.UTC(2026, 0, 1 + index)).toISOString();
      if (schema.format === "uri") return `https://api.github.com/${name}/${index}`;
      if (schema.format === "email") return `${name}${index}@example.com`;
      return `${name} ${index}`;
    default: return null;
  }
}

// The spec's GET operations as [regex, operation], the most literal template first (GitHub's
// /repos/{owner}/{repo}/pulls/comments before /repos/{owner}/{repo}/pulls/{pull_number}).
function routes(spec) {
  const out = [];
  for (const [template, item] of Object.entries(spec.paths)) {
    if (!item.get) continue;
    const re = new RegExp("^" + template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+") + "$");
    out.push({ re, op: item.get, literal: template.split("/").filter((s) => !s.startsWith("{")).length });
  }
  return out.sort((a, b) => b.literal - a.literal);
}

export function startGithubRest(port = 0) {
  const spec = JSON.parse(readFileSync(githubSpecPath, "utf8"));
  const table = routes(spec);
  const seen = [];
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const u = new URL(req.url, "http://stub");
    const route = req.method === "GET" ? table.find((r) => r.re.test(u.pathname)) : null;
    const schema = route?.op.responses?.["200"]?.content?.["application/json"]?.schema;
    if (!schema) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ message: "Not Found" }));
      return;
    }
    const size = Math.min(100, Number(u.searchParams.get("per_page") ?? 3) || 3);
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(fixture(spec, schema, "item", 0, size)));
  });
  return new Promise((resolve) => server.listen(port, "127.0.0.1", () => {
    const p = server.address().port;
    resolve({ url: `http://127.0.0.1:${p}`, port: p, seen, stop: () => server.close() });
  }));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf("--port");
  const s = await startGithubRest(i > 0 ? Number(process.argv[i + 1]) : 0);
  console.log(`listening ${s.port}`);
}
