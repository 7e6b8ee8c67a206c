// github_graphql_stub.mjs — a local stand-in for api.github.com/graphql: GitHub's real schema
// (@octokit/graphql-schema, via surfaces.mjs) executed by graphql-js over generated fixtures, so
// the token benchmark and the scripted-agent test run sluice's GraphQL code mode against GitHub's
// shape without the network. Every answer is a pure function of the field path and arguments:
// a list or connection has `first`/`last` items (else 3, at most 100), a scalar is derived from
// its type and the path (Int: 1 + index, String: "<field> <index>", Boolean: index is even,
// enums: their first value), an abstract type resolves to its first possible object type.
//   node github_graphql_stub.mjs [--port N]     prints "listening N"
// As a module: startGithubGraphql() -> { url, stop }.
import http from "node:http";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { githubSdl } from "./surfaces.mjs";

const require = createRequire(new URL("../../tests/node/package.json", import.meta.url));
const g = require("graphql");

const schema = g.buildSchema(githubSdl(), { assumeValidSDL: true });

function leaf(type, name, index) {
  if (g.isEnumType(type)) return type.getValues()[0].value;
  switch (type.name) {
    case "Int": return 1 + index;
    case "Float": return 1.5 + index;
    case "Boolean": return index % 2 === 0;
    case "ID": return `${name}-${index}`;
    case "DateTime": return new Date(Date.UTC(2026, 0, 1 + index)).toISOString();
    case "URI": return `https://github.com/octo/demo/${name}/${index}`;
    default: return `${name} ${index}`;
  }
}

// Each object value carries its index among its siblings; lists take first/last (else 3).
function fieldResolver(source, args, _ctx, info) {
  const index = source?.__index ?? 0;
  let type = info.returnType;
  if (g.isNonNullType(type)) type = type.ofType;
  const size = Math.min(100, args.first ?? args.last ?? source?.__size ?? 3);
  const make = (t, i) => {
    const named = g.getNamedType(t);
    return g.isLeafType(named) ? leaf(named, info.fieldName, i) : { __index: i, __size: size };
  };
  if (g.isListType(type)) return Array.from({ length: source?.__size ?? size }, (_, i) => make(type.ofType, i));
  const named = g.getNamedType(type);
  if (g.isLeafType(named)) {
    if (info.fieldName === "totalCount") return 42;
    return leaf(named, info.fieldName, index);
  }
  return { __index: index, __size: args.first ?? args.last ? size : 3 };
}

const typeResolver = (_value, _ctx, _info, abstract) => schema.getPossibleTypes(abstract)[0].name;

export function startGithubGraphql(port = 0) {
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", async () => {
      let out;
      try {
        const { query, variables, operationName } = JSON.parse(body || "{}");
        out = await g.graphql({ schema, source: query, variableValues: variables, operationName,
                                fieldResolver, typeResolver });
      } catch (e) {
        out = { errors: [{ message: String(e.message) }] };
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(out));
    });
  });
  return new Promise((resolve) => server.listen(port, "127.0.0.1", () => {
    const p = server.address().port;
    resolve({ url: `http://127.0.0.1:${p}/graphql`, port: p, stop: () => server.close() });
  }));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf("--port");
  const s = await startGithubGraphql(i > 0 ? Number(process.argv[i + 1]) : 0);
  console.log(`listening ${s.port}`);
}
