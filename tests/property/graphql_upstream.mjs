// graphql_upstream.mjs — the GraphQL upstream of the canary property test (graphql_canary.mjs):
// a graphql-js server over HTTP on loopback, standing in for a SaaS API, whose people carry
// canaries in their blocked fields (Person.ssn, Person.email, Employee.salary).
//
// Owns: the schema (interfaces, a union, a Relay connection, filters and an order enum that name
// the blocked fields, a search field, an echoing argument) and the resolvers, including the ways a
// real server lets a value out beside `data`: a resolver error quoting the record
// (lookupStatus), a value of the wrong type that graphql-js quotes while serialising it
// (riskScore: Int returning the SSN; tier: Plan returning the email), an error whose
// `extensions` carry the record (notes), a non-null violation (nickname), partial data with
// errors, and cursors that encode the sort key as PostGraphile's do (base64 of the ordered
// value: ordering by SSN puts the SSN in every cursor).
// Does not own: the canaries (canary.mjs makes them), judging anything.
//
// Every name here avoids the canary letters ("jkqvwxz" in pairs), so a hit is the blocked data.
import { createServer } from "node:http";
import { createRequire } from "node:module";

const require = createRequire(new URL("../node/package.json", import.meta.url));
const { graphql, buildSchema, GraphQLError } = require("graphql");

export const SDL = `
interface Node { id: ID! }
interface Person { id: ID! name: String! ssn: String email: String }
enum Plan { FREE TEAM ENTERPRISE }
enum CustomerOrder { ID NAME SSN EMAIL }
input CustomerFilter { name: String plan: Plan ssn: String ssnStartsWith: String email: String }
type PageInfo { hasNextPage: Boolean! endCursor: String }
type Order implements Node { id: ID! total: Int! customer: Customer }
type Customer implements Node & Person {
  id: ID!
  name: String!
  plan: Plan
  score: Int
  ssn: String
  email: String
  lookupStatus: String
  riskScore: Int
  tier: Plan
  notes: String
  nickname: String!
  badge(label: String = "basic"): String
  orders(first: Int): [Order!]!
}
type Employee implements Node & Person {
  id: ID!
  name: String!
  ssn: String
  email: String
  salary: Int
  manager: Employee
}
union SearchResult = Customer | Employee | Order
type CustomerEdge { cursor: String! node: Customer! }
type CustomerConnection { nodes: [Customer!]! edges: [CustomerEdge!]! pageInfo: PageInfo! totalCount: Int! }
type Query {
  customers(first: Int, after: String, filter: CustomerFilter, orderBy: CustomerOrder = ID): CustomerConnection!
  customer(id: ID!): Customer
  customerBySsn(ssn: String!): Customer
  employees(first: Int): [Employee!]!
  people(first: Int): [Person!]!
  node(id: ID!): Node
  search(text: String!, first: Int): [SearchResult!]!
  echo(text: String): String
}
`;

// The records: `ssn`, `email` and `salary` are canaries (salary: the digits of one).
export function records(canaries) {
  const names = ["Ada", "Bo", "Cy", "Di", "Ed", "Fay", "Gus", "Hal"];
  const plans = ["FREE", "TEAM", "ENTERPRISE"];
  const customers = canaries.customers.map((c, i) => ({
    __typename: "Customer", id: String(i + 1), name: `${names[i % names.length]}${i}`, plan: plans[i % 3],
    score: 100 + i * 7, ssn: c.ssn, email: c.email,
  }));
  const employees = canaries.employees.map((c, i) => ({
    __typename: "Employee", id: String(100 + i), name: `Staff${i}`, ssn: c.ssn, email: c.email,
    salary: Number(c.salary.match(/\d{9}/)[0]), managerId: i > 0 ? String(100 + i - 1) : null,
  }));
  const orders = customers.flatMap((c, i) => [0, 1].map((k) => ({
    __typename: "Order", id: String(500 + i * 2 + k), total: 10 + ((i * 13 + k * 7) % 90), customerId: c.id })));
  return { customers, employees, orders };
}

const b64 = (v) => Buffer.from(JSON.stringify(v)).toString("base64");

// A value spelled the ways servers and their libraries print one in a message: as it is, hex,
// char codes, \u escapes, reversed, base64, one character per word, its digits in pairs or one
// by one, its number in base 36. Each form is one the canary checker recognises (canary.mjs).
const SPELLINGS = [
  (v) => v, (v) => Buffer.from(v).toString("hex"), (v) => [...v].map((ch) => ch.charCodeAt(0)).join(" "),
  (v) => [...v].map((ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`).join(""), (v) => [...v].reverse().join(""),
  (v) => Buffer.from(v).toString("base64"), (v) => [...v].join(" "), (v) => v.replace(/\D/g, "").replace(/(\d\d)/g, "$1 "),
  (v) => [...v.replace(/\D/g, "")].join(" "), (v) => Number(v.replace(/\D/g, "")).toString(36),
];
const spell = (v, i) => SPELLINGS[i % SPELLINGS.length](v);

function resolvers(db) {
  const byId = new Map([...db.customers, ...db.employees, ...db.orders].map((r) => [r.id, r]));
  const size = (first, n) => (Number.isInteger(first) && first >= 0 ? Math.min(first, n) : n);
  const employee = (e) => e && ({ ...e, manager: () => employee(byId.get(e.managerId) ?? null) });
  const order = (o) => ({ ...o, customer: () => customer(byId.get(o.customerId)) });
  function customer(c) {
    if (!c) return null;
    return {
      ...c,
      // a resolver error that quotes the record, as many do
      // (each record spells them another way: upstreams format values as they please)
      lookupStatus: () => { throw new Error(`no credit record for ${c.name} with ssn ${spell(c.ssn, Number(c.id))} (${spell(c.email, Number(c.id) + 5)})`); },
      // a type bug: graphql-js quotes the value it cannot serialise
      riskScore: () => c.ssn,
      tier: () => (Number(c.id) % 2 === 0 ? c.plan : c.email),
      // the message is clean; the record rides in extensions, as Apollo's invalidArgs do
      notes: () => { throw new GraphQLError("record locked", { extensions: { code: "LOCKED", ssn: c.ssn, email: c.email } }); },
      nickname: () => (Number(c.id) % 3 === 0 ? null : `nick${c.id}`),
      badge: ({ label }) => `${label}-${c.id}`,
      orders: ({ first }) => db.orders.filter((o) => o.customerId === c.id).slice(0, size(first, 99)).map(order),
    };
  }
  const orderKey = { ID: (c) => Number(c.id), NAME: (c) => c.name, SSN: (c) => c.ssn, EMAIL: (c) => c.email };
  return {
    customers: ({ first, after, filter, orderBy }) => {
      const key = orderKey[orderBy ?? "ID"];
      let list = db.customers.filter((c) =>
        (!filter?.name || c.name === filter.name) && (!filter?.plan || c.plan === filter.plan) &&
        (!filter?.ssn || c.ssn === filter.ssn) && (!filter?.email || c.email === filter.email) &&
        (!filter?.ssnStartsWith || c.ssn.startsWith(filter.ssnStartsWith)));
      list = [...list].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
      // a PostGraphile-shaped cursor: the order and the ordered value
      const cursor = (c) => b64([orderBy ?? "ID", key(c)]);
      const start = after ? list.findIndex((c) => cursor(c) === after) + 1 : 0;
      const page = list.slice(start, start + size(first, 50));
      return {
        nodes: page.map(customer),
        edges: page.map((c) => ({ cursor: cursor(c), node: customer(c) })),
        pageInfo: { hasNextPage: start + page.length < list.length, endCursor: page.length ? cursor(page.at(-1)) : null },
        totalCount: list.length,
      };
    },
    customer: ({ id }) => customer(db.customers.find((c) => c.id === id)),
    customerBySsn: ({ ssn }) => customer(db.customers.find((c) => c.ssn === ssn)),
    employees: ({ first }) => db.employees.slice(0, size(first, 99)).map(employee),
    people: ({ first }) => [...db.customers.map(customer), ...db.employees.map(employee)].slice(0, size(first, 99)),
    node: ({ id }) => {
      const r = byId.get(id);
      return !r ? null : r.__typename === "Customer" ? customer(r) : r.__typename === "Order" ? order(r) : employee(r);
    },
    search: ({ text, first }) =>
      [...db.customers.map(customer), ...db.employees.map(employee), ...db.orders.map(order)]
        .filter((r) => (r.name ?? "").toLowerCase().includes(text.toLowerCase()) || r.id === text).slice(0, size(first, 99)),
    echo: ({ text }) => text,
  };
}

// Starts the server on a free loopback port; resolves to {port, close(), requests}.
export async function startUpstream(db) {
  const schema = buildSchema(SDL);
  const rootValue = resolvers(db);
  const state = { requests: 0 };
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", async () => {
      state.requests++;
      let out;
      try {
        const p = JSON.parse(body);
        const r = await graphql({ schema, source: p.query, rootValue, variableValues: p.variables,
                                  operationName: p.operationName });
        out = JSON.stringify(r);
      } catch (e) {
        out = JSON.stringify({ errors: [{ message: String(e?.message ?? e) }] });
      }
      res.writeHead(200, { "content-type": "application/json" }).end(out);
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { port: server.address().port, state, close: () => new Promise((r) => server.close(r)) };
}
