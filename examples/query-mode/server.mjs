// server.mjs — a vendor-style REST API over the demo database's invoices, for query mode's tests
// and demo (node, no dependencies). It serves GET /invoices like a list endpoint of an accounting
// API: 100 per page by default, a where-style date filter, page or cursor pagination, a
// requests-per-minute limit answered with 429 + Retry-After, and (optionally) every Nth request
// failing with 500.
//
//   node server.mjs --data invoices.json [--port 0] [--rpm 60] [--window-ms 60000]
//                   [--fail-every 0] [--max-page-size 100] [--token T]
//
// invoices.json is an array of {InvoiceID, ContactID, Date, Status, Total} (the test exports it
// from `sluice demo-db`). Query parameters: page_size (<= 100), page (1-based) or cursor,
// date_from / date_to (inclusive, YYYY-MM-DD), status. With --token, requests need
// "Authorization: Bearer T". --rpm is the number of requests allowed per --window-ms (a minute
// unless the tests shorten it); past it the answer is 429 with an honest Retry-After. GET /stats
// reports what was served (and the most requests ever in flight at once). Prints
// "listening <port>" once ready.
//
// Also: contact_id (one ContactID) filters /invoices; GET /contacts lists the distinct contacts
// as {ContactID, Region} (Region = EU, US or APAC by ContactID % 3; filters region, page
// pagination); --delay-ms N delays every answer; for the failure tests, /garbage answers 200 with
// HTML, /notarray answers JSON without a rows array and /slow answers after 5 s.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";

const args = Object.fromEntries(
  process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith("--") ? [...acc, [a.slice(2), all[i + 1]]] : acc), []),
);
const invoices = JSON.parse(readFileSync(args.data, "utf8"));
const rpm = Number(args.rpm ?? 0);
const failEvery = Number(args["fail-every"] ?? 0);
const windowMs = Number(args["window-ms"] ?? 60000);
const maxPage = Number(args["max-page-size"] ?? 100);
const token = args.token;
const delayMs = Number(args["delay-ms"] ?? 0);
const regions = ["EU", "US", "APAC"];
const contacts = [...new Set(invoices.map((i) => i.ContactID))].sort((a, b) => a - b)
  .map((id) => ({ ContactID: id, Region: regions[id % 3] }));
let requests = 0;
let window = [];
const stats = { requests: 0, served: 0, limited: 0, failed: 0, peak_in_flight: 0 };
let inFlight = 0;

function send(res, status, body, headers = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function filtered(q) {
  const from = q.get("date_from"), to = q.get("date_to"), status = q.get("status");
  const contact = q.get("contact_id");
  return invoices.filter((i) => (!from || i.Date >= from) && (!to || i.Date <= to) &&
    (!status || i.Status === status) && (contact === null || i.ContactID === Number(contact)));
}

function answer(req, res) {
  const url = new URL(req.url, "http://x");
  if (url.pathname === "/stats") return send(res, 200, stats);
  stats.requests++;
  if (token && req.headers.authorization !== `Bearer ${token}`) return send(res, 401, { error: "unauthorized" });
  const now = Date.now();
  window = window.filter((t) => now - t < windowMs);
  if (rpm > 0 && window.length >= rpm) {
    stats.limited++;
    const wait = Math.max(1, Math.ceil((window[0] + windowMs - now) / 1000));
    return send(res, 429, { error: "rate limited" }, { "retry-after": String(wait) });
  }
  window.push(now);
  requests++;
  if (failEvery > 0 && requests % failEvery === 0) {
    stats.failed++;
    return send(res, 500, { error: "internal error, try again" });
  }
  if (url.pathname === "/garbage") {
    res.writeHead(200, { "content-type": "text/html" });
    return res.end("<html>upstream proxy error</html>");
  }
  if (url.pathname === "/notarray") return send(res, 200, { Invoices: { oops: true } });
  if (url.pathname === "/slow") return setTimeout(() => send(res, 200, { Invoices: [] }), 5000);
  if (url.pathname === "/contacts") {
    const region = url.searchParams.get("region");
    const rows = contacts.filter((c) => !region || c.Region === region);
    const size = Math.min(Number(url.searchParams.get("page_size") ?? 100), maxPage);
    const start = (Number(url.searchParams.get("page") ?? 1) - 1) * size;
    stats.served++;
    return send(res, 200, { Contacts: rows.slice(start, start + size) });
  }
  if (url.pathname !== "/invoices") return send(res, 404, { error: "no such endpoint" });
  const size = Math.min(Number(url.searchParams.get("page_size") ?? 100), maxPage);
  const rows = filtered(url.searchParams);
  let start;
  const cursor = url.searchParams.get("cursor");
  if (cursor !== null) start = Number(Buffer.from(cursor, "base64url").toString());
  else start = (Number(url.searchParams.get("page") ?? 1) - 1) * size;
  const page = rows.slice(start, start + size);
  const next = start + size < rows.length ? Buffer.from(String(start + size)).toString("base64url") : null;
  stats.served++;
  send(res, 200, { Invoices: page, pagination: { total: rows.length, next_cursor: next } });
}

const server = createServer((req, res) => {
  if (!req.url.startsWith("/stats")) {
    stats.peak_in_flight = Math.max(stats.peak_in_flight, ++inFlight);
    res.on("close", () => inFlight--);
  }
  if (delayMs > 0) setTimeout(() => answer(req, res), delayMs);
  else answer(req, res);
});
server.listen(Number(args.port ?? 0), "127.0.0.1", () => console.log(`listening ${server.address().port}`));
