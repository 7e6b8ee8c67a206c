// server.mjs — the cost-coach REST API for the tests (examples/cost-coach/openapi.yaml), on
// loopback: node server.mjs --port 8810 [--latency-ms N] [--canaries]. Requests must carry the server-side
// credential (Authorization: Bearer $COST_COACH_TOKEN). Writes honour Idempotency-Key: a
// repeated key returns the first response and applies nothing twice.
// Test hooks (not in the spec, so no plan can reach them): GET /__state; user ids "slow",
// "boom" (500), "huge" (a 20 MB body); a createBudget whose name starts with "flaky" applies
// the write and then answers 504 the first time (a response lost on the way back).
import http from "node:http";

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
const port = Number(opt("--port", "8810"));
const latency = Number(opt("--latency-ms", "0"));
const token = process.env.COST_COACH_TOKEN || "";
// --canaries: u1 and u2 carry the canary property test's values (tests/node/js_canary_gen.mjs),
// distinctive enough that any recognisable form of them in a response or the audit is a leak
const canaries = args.includes("--canaries");

const users = {};
const teams = ["platform", "data", "web", "mobile"];
for (let i = 1; i <= 30; i++)
  users[`u${i}`] = { id: `u${i}`, name: `Owner ${i}`, team: teams[i % 4], email: `owner${i}@example.com`,
                     ssn: `123-45-${String(1000 + i)}`, salary: 100000 + i * 1000, password: `pw-${i}` };
if (canaries) {
  Object.assign(users.u1, { ssn: "739-41-5826", salary: 184273 });
  Object.assign(users.u2, { ssn: "602-17-3948", salary: 91357 });
}
const budgets = [];
for (let i = 1; i <= 24; i++) {
  const limit = 1000 + i * 250;
  const forecast = limit + ((i * 7919) % 1700) - 600; // some over, some under
  budgets.push({ id: `b${i}`, name: `Budget ${i}`, ownerId: `u${((i * 7) % 30) + 1}`, limit, forecast, note: "" });
}
const seen = new Map(); // Idempotency-Key -> { status, body }
const log = [];        // every request: method, path, key

function send(res, status, body) {
  const text = body === undefined ? "" : JSON.stringify(body);
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(text);
}

function route(method, path, body) {
  let m;
  if (method === "POST" && path === "/budgets/listForecasts") {
    if (typeof body?.month !== "string") return [400, { error: "month" }];
    return [200, { items: budgets.map(({ id, name, ownerId, limit, forecast }) => ({ id, name, ownerId, limit, forecast })) }];
  }
  if (method === "GET" && (m = path.match(/^\/users\/([^/]+)$/))) {
    const id = decodeURIComponent(m[1]);
    if (id === "boom") return [500, { error: "internal" }];
    if (id === "huge") return [200, { id, name: "x".repeat(20 * 1024 * 1024) }];
    return users[id] ? [200, users[id]] : [404, { error: "no such user" }];
  }
  if (method === "POST" && ["/getCostAndUsage", "/getCostForecast", "/getCostAnomalies"].includes(path))
    return [200, { path, total: 1234.5, body }];
  if (method === "POST" && path === "/budgets") {
    const b = { id: `b${budgets.length + 1}`, name: body.name, ownerId: body.ownerId, limit: body.limit, forecast: 0, note: "" };
    budgets.push(b);
    return [201, b];
  }
  if (method === "PATCH" && (m = path.match(/^\/budgets\/([^/]+)\/note$/))) {
    const b = budgets.find((x) => x.id === decodeURIComponent(m[1]));
    if (!b) return [404, { error: "no such budget" }];
    b.note = body.note;
    return [200, b];
  }
  if (method === "DELETE" && (m = path.match(/^\/budgets\/([^/]+)$/))) {
    const i = budgets.findIndex((x) => x.id === decodeURIComponent(m[1]));
    if (i < 0) return [404, { error: "no such budget" }];
    budgets.splice(i, 1);
    return [204, undefined];
  }
  return [404, { error: "no such operation" }];
}

const server = http.createServer((req, res) => {
  let raw = "";
  req.on("data", (d) => (raw += d));
  req.on("end", () => {
    const url = new URL(req.url, "http://x");
    if (url.pathname === "/__state") return send(res, 200, { budgets, log });
    if (req.headers.authorization !== `Bearer ${token}`) return send(res, 401, { error: "credential" });
    const key = req.headers["idempotency-key"] ?? null;
    log.push({ method: req.method, path: url.pathname, query: url.search, key });
    let body = null;
    try { body = raw ? JSON.parse(raw) : null; } catch { return send(res, 400, { error: "json" }); }
    const answer = () => {
      if (key && seen.has(key)) { const s = seen.get(key); return send(res, s.status, s.body); }
      const [status, out] = route(req.method, url.pathname, body);
      if (key && req.method !== "GET") seen.set(key, { status, body: out });
      if (req.method === "POST" && url.pathname === "/budgets" && String(body?.name).startsWith("flaky") &&
          !req.headers["x-retried"]) {
        if (!key || seen.get(key).lost !== true) {
          if (key) seen.get(key).lost = true;
          return send(res, 504, { error: "gateway timeout" });
        }
      }
      send(res, status, out);
    };
    const delay = url.pathname === "/users/slow" ? 60000 : latency;
    if (delay > 0) setTimeout(answer, delay); else answer();
  });
});
server.listen(port, "127.0.0.1", () => console.log(`cost-coach listening on ${port}`));
