// server.mjs — the demo GraphQL API for sluice's GraphQL code mode: schema.graphql served over
// the demo database (built with `sluice demo-db`) by graphql-js + graphql-http, on loopback.
//
// Owns: the resolvers (customers, customer, orders, supportTickets; the two mutations keep
// their changes in memory, the database is opened read-only) and the failure modes the tests
// need, chosen by path prefix: /graphql (normal), /slow/graphql (answers after --slow-ms),
// /500/graphql (HTTP 500, no GraphQL body), /huge/graphql (a 50 MB JSON body).
// When DEMO_GRAPHQL_TOKEN is set, every request must carry "Authorization: Bearer <it>" (the
// credential sluice holds server-side), else HTTP 401.
// When DEMO_GRAPHQL_CALLER_KEY is set, every request must also carry the caller assertion sluice
// signs (caller_assertion_header, docs/graphql.md "The caller at the upstream") in the header
// X-Sluice-Caller: an HS256 JWS under that key, audience DEMO_GRAPHQL_CALLER_AUDIENCE, not expired,
// else HTTP 401; a caller named in DEMO_GRAPHQL_DENY_USERS (comma-separated) gets HTTP 403: the
// upstream authorising per user. DEMO_GRAPHQL_CALLER_LOG names a file each verified claim set is
// appended to (one JSON line, with the Authorization header seen), for the tests.
// Does not own: any policy — sluice decides what may run.
//
// usage: node server.mjs --db demo.duckdb [--port 0] [--slow-ms 5000]
//   prints "listening <port>" on stdout once it accepts connections.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { appendFileSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// The pinned packages live in tests/node (package-lock.json); resolve them from there.
const here = dirname(fileURLToPath(import.meta.url));
const req = createRequire(join(process.env.SLUICE_NODE_DIR ?? join(here, '../../tests/node'), 'package.json'));
const load = (name) => import(pathToFileURL(req.resolve(name)).href);
const { buildSchema } = await load('graphql');
const { createHandler } = await load('graphql-http/lib/use/http');
const { DuckDBInstance } = await load('@duckdb/node-api');

const args = process.argv.slice(2);
const opt = (flag, dflt) => {
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1] : dflt;
};
const schema = buildSchema(readFileSync(join(here, 'schema.graphql'), 'utf8'));
const instance = await DuckDBInstance.create(opt('--db'), { access_mode: 'READ_ONLY' });
const conn = await instance.connect();
const slowMs = Number(opt('--slow-ms', 5000));
const token = process.env.DEMO_GRAPHQL_TOKEN;

async function rows(sql, params = []) {
  const reader = await conn.runAndReadAll(sql, params);
  return reader.getRowObjectsJson();
}

const segmentOverride = new Map(); // customer id -> segment (updateCustomerSegment)
const deletedTickets = new Set();

const dir = (d) => (d === 'ASC' ? 'ASC' : 'DESC');

function customer(r) {
  const id = String(r.id);
  return {
    id,
    name: r.name,
    segment: segmentOverride.get(id) ?? r.segment,
    plan: r.plan,
    createdAt: r.created_at,
    email: r.email,
    ssn: r.ssn,
    async orders({ orderBy, limit }) {
      const order = orderBy?.total ? `total_cents ${dir(orderBy.total)}` : `order_date ${dir(orderBy?.placedAt ?? 'DESC')}`;
      const lim = Number.isInteger(limit) && limit >= 0 ? `LIMIT ${limit}` : '';
      const rs = await rows(`SELECT id, total_cents, CAST(order_date AS VARCHAR) AS placed_at, status
                             FROM orders WHERE customer_id = $1 ORDER BY ${order}, id DESC ${lim}`, [Number(id)]);
      return rs.map((o) => ({ id: String(o.id), total: Number(o.total_cents) / 100, placedAt: o.placed_at, status: o.status }));
    },
    async supportTickets({ filter }) {
      const where = filter?.status ? 'AND status = $2' : '';
      const params = filter?.status ? [Number(id), filter.status.toLowerCase()] : [Number(id)];
      const rs = await rows(`SELECT id, subject, priority, status FROM support_tickets
                             WHERE customer_id = $1 ${where} ORDER BY created_at DESC, id DESC`, params);
      return rs.filter((t) => !deletedTickets.has(String(t.id)))
        .map((t) => ({ id: String(t.id), subject: t.subject, priority: t.priority, status: t.status }));
    },
  };
}

const CUSTOMER_COLUMNS = 'id, name, segment, plan, CAST(created_at AS VARCHAR) AS created_at, email, ssn';

const rootValue = {
  async customers({ orderBy, limit, filter }) {
    const conds = [];
    const params = [];
    for (const key of ['segment', 'plan', 'email']) {
      if (filter?.[key] != null) {
        params.push(filter[key]);
        conds.push(`${key} = $${params.length}`);
      }
    }
    const order = orderBy?.name ? `name ${dir(orderBy.name)}` : `created_at ${dir(orderBy?.createdAt ?? 'DESC')}`;
    const lim = Number.isInteger(limit) && limit >= 0 ? `LIMIT ${limit}` : '';
    const rs = await rows(`SELECT ${CUSTOMER_COLUMNS} FROM customers ${conds.length ? 'WHERE ' + conds.join(' AND ') : ''}
                           ORDER BY ${order}, id DESC ${lim}`, params);
    return rs.map(customer);
  },
  async customer({ id }) {
    if (!/^[0-9]+$/.test(id)) throw new Error(`no customer has the id "${id}"`);
    const rs = await rows(`SELECT ${CUSTOMER_COLUMNS} FROM customers WHERE id = $1`, [Number(id)]);
    return rs.length ? customer(rs[0]) : null;
  },
  async updateCustomerSegment({ id, segment }) {
    segmentOverride.set(String(id), segment);
    return rootValue.customer({ id });
  },
  deleteSupportTicket({ id }) {
    deletedTickets.add(String(id));
    return true;
  },
};

const handler = createHandler({ schema, rootValue });

// The caller assertion, verified as an upstream must: signature, algorithm, audience, expiry.
// Returns the claims, or the reason it is refused.
const callerKey = process.env.DEMO_GRAPHQL_CALLER_KEY;
function verifyCaller(jws) {
  const parts = (jws ?? '').split('.');
  if (parts.length !== 3) return { error: 'no caller assertion' };
  const mac = createHmac('sha256', callerKey).update(`${parts[0]}.${parts[1]}`).digest();
  const sig = Buffer.from(parts[2], 'base64url');
  if (sig.length !== mac.length || !timingSafeEqual(sig, mac)) return { error: 'bad signature' };
  const head = JSON.parse(Buffer.from(parts[0], 'base64url'));
  if (head.alg !== 'HS256') return { error: `algorithm ${head.alg}` };
  const claims = JSON.parse(Buffer.from(parts[1], 'base64url'));
  if (claims.aud !== process.env.DEMO_GRAPHQL_CALLER_AUDIENCE) return { error: `audience ${claims.aud}` };
  if (!(claims.exp > Date.now() / 1000)) return { error: 'expired' };
  return { claims };
}

const server = createServer((req, res) => {
  if (token !== undefined && req.headers.authorization !== `Bearer ${token}`) {
    res.writeHead(401, { 'content-type': 'text/plain' }).end('missing or wrong credential');
    return;
  }
  if (callerKey !== undefined) {
    const { claims, error } = verifyCaller(req.headers['x-sluice-caller']);
    if (error) {
      res.writeHead(401, { 'content-type': 'text/plain' }).end(`caller assertion refused: ${error}`);
      return;
    }
    if (process.env.DEMO_GRAPHQL_CALLER_LOG)
      appendFileSync(process.env.DEMO_GRAPHQL_CALLER_LOG,
                     `${JSON.stringify({ claims, authorization: req.headers.authorization })}\n`);
    if ((process.env.DEMO_GRAPHQL_DENY_USERS ?? '').split(',').includes(claims.sub)) {
      res.writeHead(403, { 'content-type': 'text/plain' }).end(`${claims.sub} may not use this API`);
      return;
    }
  }
  const url = req.url ?? '';
  if (url.startsWith('/500/')) {
    res.writeHead(500, { 'content-type': 'text/plain' }).end('upstream exploded');
    return;
  }
  if (url.startsWith('/huge/')) {
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = 'x'.repeat(1 << 20);
    res.write('{"data":{"customers":[{"name":"');
    for (let i = 0; i < 50; i++) res.write(chunk);
    res.end('"}]}}');
    return;
  }
  if (url.startsWith('/slow/')) {
    setTimeout(() => handler(req, res), slowMs);
    return;
  }
  if (!url.startsWith('/graphql')) {
    res.writeHead(404).end();
    return;
  }
  handler(req, res);
});
server.listen(Number(opt('--port', 0)), '127.0.0.1', () => {
  process.stdout.write(`listening ${server.address().port}\n`);
});
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => process.exit(0));
