// sql_gen.mjs — seeded random SQL (DuckDB dialect, and a PostgreSQL mode) over the demo schema, with its own judgement of
// what the blocked-field contract (docs/security.md) says about each statement.
//
// Owns: a generator driven by a stream of draws (so a statement is reproducible from its seed and
// shrinkable by editing the stream: a missing draw is 0, and choice 0 is always the simplest),
// covering joins of every kind, subqueries in every position, CTEs (recursive too), set
// operations, windows with frames, GROUP BY / GROUPING SETS / ROLLUP / CUBE, QUALIFY, * with
// EXCLUDE / REPLACE / COLUMNS, struct / list / map constructors and unpacking, casts, string and
// list functions, aggregates, generated relations, predicates of every kind, PIVOT, and the
// known attack moves (generated domains equated with blocked values or functions of them,
// per-character and binary-search reconstruction, error-message channels, refused functions).
// Each statement comes with: tags (constructs used), and the generator's verdict under the
// contract — `dirty` (the reasons the contract refuses it: a blocked output, a disallowed
// predicate form) and `refusedFn` (it calls something code mode must never run).
// Does not own: running statements or scanning results (run.mjs).
//
// Provenance: every expression carries the base columns it is computed from (deps) and, when it
// is a column reached without computation, that column (bare). The contract's taint is closed at
// the end over the top-level equalities between bare columns, then every recorded predicate use
// is judged against the table in docs/security.md. The judgement is conservative towards "dirty"
// (a struct field is computed from the whole struct), so a "clean" statement is one the contract
// plainly allows.

import { prng } from "../node/toml_gen.mjs";

// ---- draws ------------------------------------------------------------------------------------
export class Draws {
  constructor(seedOrStream) {
    if (Array.isArray(seedOrStream)) {
      this.stream = seedOrStream;
      this.replay = true;
    } else {
      this.rand = prng(seedOrStream).next; // mulberry32, shared with the TOML generator
      this.stream = [];
      this.replay = false;
    }
    this.i = 0;
  }
  next() {
    if (this.replay) return this.i < this.stream.length ? this.stream[this.i++] : (this.i++, 0);
    const v = this.rand();
    this.stream.push(v);
    this.i++;
    return v;
  }
  int(n) { return Math.min(n - 1, Math.floor(this.next() * n)); }
  pick(xs) { return xs[this.int(xs.length)]; }
  chance(p) { return this.next() >= 1 - p; } // a draw of 0 says no
}

// ---- schema -----------------------------------------------------------------------------------
export const SCHEMA = {
  customers: { id: "int", name: "str", plan: "str", segment: "str", email: "str", ssn: "str", created_at: "ts", rep_id: "int" },
  orders: { id: "int", customer_id: "int", order_date: "date", total_cents: "int", status: "str" },
  support_tickets: { id: "int", customer_id: "int", created_at: "ts", status: "str", priority: "str", subject: "str" },
  sales_reps: { id: "int", name: "str", region: "str", email: "str", hired_on: "date", annual_quota_cents: "int" },
  contacts: { customer_id: "int", last_contacted_at: "ts", channel: "str", rep_id: "int", outcome: "str" },
  account_quarterly_metrics: { rep_id: "int", customer_id: "int", quarter: "str", quarterly_revenue: "dec", ticket_count: "int" },
  invoices: { id: "int", customer_id: "int", date: "date", status: "str", total: "dec" },
};
const TABLES = Object.keys(SCHEMA);
const SMALL = new Set(["sales_reps", "generated"]);
// Foreign keys: [table, col, table, col] — joins that return rows.
const FKS = [
  ["orders", "customer_id", "customers", "id"], ["support_tickets", "customer_id", "customers", "id"],
  ["customers", "rep_id", "sales_reps", "id"], ["contacts", "customer_id", "customers", "id"],
  ["contacts", "rep_id", "sales_reps", "id"], ["account_quarterly_metrics", "customer_id", "customers", "id"],
  ["invoices", "customer_id", "customers", "id"], ["account_quarterly_metrics", "rep_id", "sales_reps", "id"],
];

// Characters a per-character attack tries: every canary character (canary.mjs: letters from
// "jkqvwxz", digits, '-', '.', '@') and a few others, each a single character so no
// concatenation of the domain list spells a canary fragment.
const CHARS = ["0", "j", "1", "k", "2", "q", "3", "v", "4", "w", "5", "x", "6", "z", "7", "-", "8", ".", "9", "@", "a", "e", "i"];
const STR_LITS = ["'free'", "'pro'", "'enterprise'", "'SMB'", "'open'", "'completed'", "'EMEA'", "'%a%'", "'A%'", "''",
  "'000-00-0000'", "'x@example.com'", "'5'", "'m'", "'Bright Logistics Inc'", "'email'", "'phone'", "'high'"];

const uniq = (...sets) => new Set(sets.flatMap((s) => [...s]));
const E = (sql, type, deps = new Set(), extra = {}) => ({ sql, type, deps, bare: null, lit: false, ...extra });
const lit = (sql, type) => E(sql, type, new Set(), { lit: true });

// ---- generator ----------------------------------------------------------------------------------
export class Gen {
  constructor(draws, blocked, engine = "duckdb") {
    this.d = draws;
    this.engine = engine;
    this.blocked = new Set(blocked);
    this.tags = new Set();
    this.uses = []; // {form, ops, nested}
    this.outputs = []; // expressions the statement returns
    this.dirtyNow = new Set(); // reasons known at generation time
    this.refusedFn = false;
    this.vars = {}; // parameters the statement uses: name -> value (execute_code "variables")
    this.aliasN = 0;
    this.depth = 0;
  }
  tag(t) { this.tags.add(t); }
  alias(p = "t") { return `${p}${++this.aliasN}`; }
  use(form, ops, nested) { this.uses.push({ form, ops, nested }); }
  // A parameter: a literal to the contract ("= a single parameter"); its value's JSON type may
  // differ from the column's (the executor binds it as given).
  param(type) {
    const name = `p${Object.keys(this.vars).length + 1}`;
    const d = this.d;
    this.vars[name] = type === "int" ? d.pick([0, 1, 7, -3, 2147483648, 9007199254740991, 1.5, null])
      : d.pick(["abc", "", "000-00-0000", "x@example.com", "free", "%", "'; SELECT 1 --", "\u00e9", "5", null, 5, true]);
    this.tag("param");
    return E(`$${name}`, type, new Set(), { lit: true });
  }

  // A base table as a relation.
  table(name = this.d.pick(TABLES)) {
    const a = this.alias(name[0]);
    const cols = Object.entries(SCHEMA[name]).map(([c, type]) => ({ name: c, type, deps: new Set([`${name}.${c}`]), bare: `${name}.${c}` }));
    return { sql: `${name} ${a}`, alias: a, cols, table: name };
  }

  // A generated relation: range, generate_series, VALUES, unnest of a list, string_split.
  generated() {
    const a = this.alias("g");
    const kind = this.d.int(6);
    this.tag("gen:" + ["range", "generate_series", "values", "unnest", "unnest_chars", "string_split"][kind]);
    const col = (type) => [{ name: "x", type, deps: new Set(), bare: null }];
    switch (kind) {
      case 0: return { sql: `range(${1 + this.d.int(30)}) ${a}(x)`, alias: a, cols: col("int") };
      case 1: return { sql: `generate_series(${this.d.int(5)}, ${5 + this.d.int(25)}) ${a}(x)`, alias: a, cols: col("int") };
      case 2: return { sql: `(VALUES ${[1, 2, 3].map((i) => `(${STR_LITS[(i * 5 + this.d.int(9)) % STR_LITS.length]})`).join(", ")}) ${a}(x)`, alias: a, cols: col("str") };
      case 3: return { sql: `unnest([${STR_LITS.slice(0, 2 + this.d.int(6)).join(", ")}]) ${a}(x)`, alias: a, cols: col("str") };
      case 4: return { sql: `unnest([${CHARS.map((c) => `'${c}'`).join(", ")}]) ${a}(x)`, alias: a, cols: col("str") };
      default: return { sql: `unnest(string_split('a,b,0,1,j,k', ',')) ${a}(x)`, alias: a, cols: col("str") };
    }
  }

  // A derived table: a subquery in FROM (or a CTE reference), its columns carry the inner deps.
  derived(scopeOuter = null) {
    const a = this.alias("s");
    const inner = this.select({ maxDepth: 1, outer: scopeOuter });
    const cols = inner.cols.map((c, i) => ({ name: `c${i}`, type: c.type, deps: c.deps, bare: c.bare }));
    return { sql: `(${inner.sql}) ${a}(${cols.map((c) => c.name).join(", ")})`, alias: a, cols };
  }

  relation(allowDerived) {
    const r = this.d.int(10);
    if (r < 6 || !allowDerived) return this.table();
    if (r < 8) return this.generated();
    this.tag("subquery:from");
    return this.derived();
  }

  colsOf(rels) { return rels.flatMap((rel) => rel.cols.map((c) => ({ ...c, ref: `${rel.alias}.${c.name}` }))); }
  colExpr(c) { return E(c.ref, c.type, c.deps, { bare: c.bare, generated: c.bare === null }); }
  pickCol(cols, type) {
    const ok = type ? cols.filter((c) => c.type === type) : cols;
    return ok.length ? this.colExpr(this.d.pick(ok)) : null;
  }
  // Prefers a blocked column now and then: the property is about them.
  pickColBiased(cols, type) {
    const bl = cols.filter((c) => c.bare && this.blocked.has(c.bare) && (!type || c.type === type));
    if (bl.length && this.d.chance(0.3)) return this.colExpr(this.d.pick(bl));
    return this.pickCol(cols, type);
  }

  // ---- expressions ---------------------------------------------------------------------------
  expr(cols, type, depth = 0) {
    const d = this.d;
    const want = type ?? d.pick(["str", "int", "str", "int", "date", "bool"]);
    if (depth > 2 || !d.chance(0.45)) {
      const c = this.pickColBiased(cols, want);
      if (c) return c;
      if (depth > 2) return want === "int" ? lit("1", "int") : want === "bool" ? lit("true", "bool") : want === "date" ? lit("DATE '2026-01-01'", "date") : lit("'x'", "str");
    }
    const sub = (t) => this.expr(cols, t, depth + 1);
    switch (want) {
      case "str": return this.strExpr(cols, sub);
      case "int": return this.intExpr(cols, sub, depth);
      case "bool": return this.boolExpr(cols, depth + 1, true);
      case "date": {
        const c = this.pickCol(cols, "date") ?? this.pickCol(cols, "ts");
        if (!c) return lit("DATE '2026-01-01'", "date");
        this.tag("func:date");
        return E(d.pick([`date_trunc('month', ${c.sql})`, `CAST(${c.sql} AS DATE)`, `${c.sql} + INTERVAL 1 DAY`]), "date", c.deps);
      }
      default: return this.strExpr(cols, sub);
    }
  }

  strExpr(cols, sub) {
    const d = this.d;
    const k = d.int(16);
    if (k === 0) return lit(d.pick(STR_LITS), "str");
    const a = sub("str");
    this.tag("func:string");
    switch (k) {
      case 1: return E(`upper(${a.sql})`, "str", a.deps);
      case 2: return E(`lower(${a.sql})`, "str", a.deps);
      case 3: return E(`reverse(${a.sql})`, "str", a.deps);
      case 4: return E(`substr(${a.sql}, ${1 + d.int(8)}, ${1 + d.int(8)})`, "str", a.deps);
      case 5: return E(`left(${a.sql}, ${1 + d.int(6)})`, "str", a.deps);
      case 6: { const b = sub("str"); return E(`concat(${a.sql}, '-', ${b.sql})`, "str", uniq(a.deps, b.deps)); }
      case 7: { const b = sub("str"); return E(`(${a.sql} || ${b.sql})`, "str", uniq(a.deps, b.deps)); }
      case 8: return E(`replace(${a.sql}, 'a', 'b')`, "str", a.deps);
      case 9: return E(`md5(${a.sql})`, "str", a.deps);
      case 10: return E(this.encoding(a.sql), "str", a.deps);
      case 11: return E(`to_base64(CAST(${a.sql} AS BLOB))`, "str", a.deps);
      case 12: return E(`regexp_replace(${a.sql}, '[^0-9]', '', 'g')`, "str", a.deps);
      case 13: { this.tag("cast"); const i = sub("int"); return E(`CAST(${i.sql} AS VARCHAR)`, "str", i.deps, { bare: i.bare }); }
      case 14: { this.tag("case"); const c = this.boolExpr(cols, 2, true); const b = sub("str");
        return E(`CASE WHEN ${c.sql} THEN ${a.sql} ELSE ${b.sql} END`, "str", uniq(c.deps, a.deps, b.deps)); }
      default: { this.tag("list"); return E(`array_to_string(list_reverse(string_split(${a.sql}, '')), '')`, "str", a.deps); }
    }
  }

  // A reversible encoding of a string (encodings() below).
  encoding(x) {
    this.tag("func:encoding");
    return this.d.pick(encodings(x, this.engine));
  }

  intExpr(cols, sub, depth) {
    const d = this.d;
    const k = d.int(9);
    if (k === 0) return lit(String(d.int(100)), "int");
    if (k === 1) { const a = sub("str"); this.tag("func:string"); return E(`length(${a.sql})`, "int", a.deps); }
    if (k === 2) { const a = sub("int"); const b = sub("int"); return E(`(${a.sql} ${d.pick(["+", "-", "*", "%"])} ${b.sql})`, "int", uniq(a.deps, b.deps)); }
    if (k === 3) { const a = sub("str"); this.tag("func:string"); return E(`strpos(${a.sql}, '${d.pick(CHARS)}')`, "int", a.deps); }
    if (k === 4) { const a = sub("str"); this.tag("cast"); return E(`TRY_CAST(${a.sql} AS INTEGER)`, "int", a.deps); }
    if (k === 5 && depth < 2) { const a = sub("str"); this.tag("func:list"); return E(`len(string_split(${a.sql}, '-'))`, "int", a.deps); }
    if (k === 6) { const a = sub("str"); return E(`ascii(${a.sql})`, "int", a.deps); }
    const c = this.pickCol(cols, "int");
    return c ?? lit("1", "int");
  }

  // A predicate. top: it is AND-ed at the top of WHERE / ON / HAVING (so a comparison in it is
  // judged as a single guess); nested ones are inside OR / NOT / CASE.
  boolExpr(cols, depth = 0, nested = false, strategy = null) {
    const d = this.d;
    const k = depth > 2 ? d.int(10) : d.int(16);
    const colOrExpr = (type) => (d.chance(0.6) ? this.pickColBiased(cols, type) : null) ?? this.expr(cols, type, depth + 1);
    const cmp = (form, op, type = "str") => {
      const a = colOrExpr(type);
      const b = d.chance(0.1) ? this.param(type)
        : d.chance(0.5) ? lit(type === "str" ? d.pick(STR_LITS) : String(d.int(50)), type) : (this.pickCol(cols, type) ?? (type === "str" ? lit("'1'", "str") : lit("1", "int")));
      if (type === "str" && b.lit && b.type !== "str") b.type = "str";
      this.use(form, [a, b], nested);
      this.tag("pred:" + form);
      return E(`${a.sql} ${op} ${b.sql}`, "bool", uniq(a.deps, b.deps));
    };
    switch (k) {
      case 0: return cmp("eq", "=");
      case 1: return cmp("eq", "=", "int");
      case 2: return cmp("ne", d.pick(["<>", "!=", "IS DISTINCT FROM"]));
      case 3: return cmp("eq", "IS NOT DISTINCT FROM");
      case 4: return cmp("range", d.pick(["<", "<=", ">", ">="]), d.pick(["str", "int"]));
      case 5: { const a = colOrExpr("str"); this.use("range", [a], nested); this.tag("pred:between");
        return E(`${a.sql} BETWEEN 'a' AND 'm'`, "bool", a.deps); }
      case 6: { const a = colOrExpr("str"); const op = d.pick(["LIKE", "ILIKE", "NOT LIKE", "GLOB", "SIMILAR TO"]);
        this.use("pattern", [a], nested); this.tag("pred:pattern");
        return E(`${a.sql} ${op} ${op === "GLOB" ? "'*a*'" : op === "SIMILAR TO" ? "'.*a.*'" : "'%a%'"}`, "bool", a.deps); }
      case 7: { const a = colOrExpr("str"); const fn = d.pick(["starts_with", "contains", "prefix", "suffix", "regexp_matches"]);
        this.use("pattern", [a], nested); this.tag("pred:pattern");
        return E(`${fn}(${a.sql}, '${d.pick(CHARS)}')`, "bool", a.deps); }
      case 8: { const a = colOrExpr("str"); this.use("inlist", [a], nested); this.tag("pred:inlist");
        return E(`${a.sql} ${d.chance(0.3) ? "NOT " : ""}IN (${STR_LITS.slice(0, 2 + d.int(5)).join(", ")})`, "bool", a.deps); }
      case 9: { const a = colOrExpr(d.pick(["str", "int"])); this.use("isnull", [a], nested); this.tag("pred:isnull");
        return E(`${a.sql} IS ${d.chance(0.5) ? "NOT " : ""}NULL`, "bool", a.deps); }
      case 10: { const a = this.boolExpr(cols, depth + 1, true); const b = this.boolExpr(cols, depth + 1, true); this.tag("pred:or");
        return E(`(${a.sql} OR ${b.sql})`, "bool", uniq(a.deps, b.deps)); }
      case 11: { const a = this.boolExpr(cols, depth + 1, true); this.tag("pred:not"); return E(`NOT (${a.sql})`, "bool", a.deps); }
      case 12: return this.subqueryPred(cols, nested);
      case 13: { const a = this.boolExpr(cols, depth + 1, nested); const b = this.boolExpr(cols, depth + 1, nested);
        return E(`(${a.sql} AND ${b.sql})`, "bool", uniq(a.deps, b.deps)); }
      case 14: { // a scalar subquery compared with an ordinary column
        const c = this.pickCol(cols, "int");
        if (!c) return lit("true", "bool");
        this.tag("subquery:scalar_where");
        const t = this.table(d.pick(["orders", "invoices", "account_quarterly_metrics"]));
        const ic = this.pickCol(this.colsOf([t]), "int");
        this.use("range", [c, E("(scalar)", "int", ic.deps)], nested);
        return E(`${c.sql} ${d.pick(["<", ">", "="])} (SELECT ${d.pick(["max", "min", "avg"])}(${ic.sql}) FROM ${t.sql})`, "bool", uniq(c.deps, ic.deps));
      }
      default: { this.tag("pred:case"); const a = this.boolExpr(cols, depth + 1, true);
        return E(`CASE WHEN ${a.sql} THEN true ELSE false END`, "bool", a.deps); }
    }
  }

  // Every early return drops the uses recorded for what it throws away (mark).
  subqueryPred(cols, nested) {
    const d = this.d;
    const mark = this.uses.length;
    const none = () => { this.uses.length = mark; return lit("true", "bool"); };
    const k = d.int(4);
    const t = this.table(d.pick(["customers", "sales_reps", "orders", "contacts"]));
    const tcols = this.colsOf([t]);
    if (k === 0) { // IN (SELECT col FROM table)
      this.tag("subquery:in");
      const a = this.pickColBiased(cols, "str") ?? this.pickColBiased(cols, "int");
      if (!a) return none();
      const inner = d.chance(0.7) ? this.pickColBiased(tcols, a.type) : this.expr(tcols, a.type, 2);
      if (!inner) return none();
      this.use("in_subquery", [a, inner], nested);
      return E(`${a.sql} ${d.chance(0.2) ? "NOT " : ""}IN (SELECT ${inner.sql} FROM ${t.sql})`, "bool", uniq(a.deps, inner.deps));
    }
    if (k === 1) { // correlated EXISTS
      this.tag("subquery:exists");
      const a = this.pickColBiased(cols, "str") ?? this.pickColBiased(cols, "int");
      const inner = a && this.pickColBiased(tcols, a.type);
      if (!a || !inner) return none();
      this.use("eq", [inner, a], nested);
      return E(`${d.chance(0.2) ? "NOT " : ""}EXISTS (SELECT 1 FROM ${t.sql} WHERE ${inner.sql} = ${a.sql})`, "bool", uniq(a.deps, inner.deps));
    }
    if (k === 2) { // ANY / ALL
      this.tag("subquery:any");
      const a = this.pickColBiased(cols, "str");
      const inner = a && this.pickColBiased(tcols, "str");
      if (!a || !inner) return none();
      const op = d.pick(["=", "<", ">"]);
      const q = d.pick(["ANY", "ALL"]);
      // = ANY is IN; = ALL holds when no value differs (an inequality test); < / > are ranges
      this.use(op === "=" ? (q === "ANY" ? "in_subquery" : "ne") : "range", [a, inner], nested);
      return E(`${a.sql} ${op} ${q} (SELECT ${inner.sql} FROM ${t.sql})`, "bool", uniq(a.deps, inner.deps));
    }
    // a predicate inside the subquery over its own columns
    this.tag("subquery:exists");
    const p = this.boolExpr(tcols, 2, false);
    return E(`EXISTS (SELECT 1 FROM ${t.sql} WHERE ${p.sql})`, "bool", p.deps);
  }

  // An output expression: plain, aggregate, window, packing, unpacking, scalar subquery.
  outputExpr(cols, grouped, relsForSub) {
    const d = this.d;
    const k = d.int(grouped ? 8 : 10);
    if (grouped) {
      const agg = () => {
        const a = this.pickColBiased(cols, d.pick(["str", "int"])) ?? this.pickCol(cols);
        const fn = d.int(11);
        this.tag("agg");
        switch (fn) {
          case 0: return E("count(*)", "int");
          case 1: return E(`count(DISTINCT ${a.sql})`, "int", a.deps);
          case 2: return a.type === "int" ? E(`sum(${a.sql})`, "int", a.deps) : E(`max(${a.sql})`, "str", a.deps);
          case 3: this.tag("agg:string_agg"); return E(`string_agg(CAST(${a.sql} AS VARCHAR), ',')`, "str", a.deps);
          case 4: this.tag("agg:list"); return E(`list(${a.sql})`, "list", a.deps);
          case 5: this.tag("agg:histogram"); return E(`histogram(${a.sql})`, "map", a.deps);
          case 6: { this.tag("agg:arg_max"); const b = this.pickColBiased(cols, "int") ?? a;
            return E(`arg_max(${a.sql}, ${b.sql})`, a.type, uniq(a.deps, b.deps)); }
          case 7: this.tag("agg:first"); return E(`first(${a.sql})`, a.type, a.deps);
          case 8: return E(`min(${a.sql})`, a.type, a.deps);
          case 9: return E(`any_value(${a.sql})`, a.type, a.deps);
          default: { this.tag("agg:filter"); const p = this.boolExpr(cols, 2, true);
            return E(`count(*) FILTER (WHERE ${p.sql})`, "int", p.deps); }
        }
      };
      return agg();
    }
    switch (k) {
      case 0: case 1: case 2: return this.expr(cols, null, 0);
      case 3: { // window
        this.tag("window");
        const part = this.pickColBiased(cols);
        const ord = this.pickColBiased(cols, d.pick(["int", "str", "date"])) ?? part;
        const fn = d.pick(["row_number()", "rank()", "dense_rank()", "count(*)", `lag(${ord.sql})`, `first_value(${ord.sql})`, `sum(${(this.pickCol(cols, "int") ?? lit("1", "int")).sql})`]);
        const frame = d.chance(0.4) ? (this.tag("window:frame"), ` ${d.pick(["ROWS BETWEEN 2 PRECEDING AND CURRENT ROW", "ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING", "RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"])}`) : "";
        const deps = uniq(part.deps, ord.deps);
        if (part.bare) this.use("group", [part], false); else this.use("func_key", [part], false);
        this.use("order", [ord], false);
        return E(`${fn} OVER (PARTITION BY ${part.sql} ORDER BY ${ord.sql}${frame})`, fn.startsWith("first") || fn.startsWith("lag") ? ord.type : "int", deps);
      }
      case 4: { // packing
        this.tag("pack");
        const a = this.pickColBiased(cols); const b = this.pickColBiased(cols);
        const k2 = d.int(4);
        const deps = uniq(a.deps, b.deps);
        if (k2 === 0) return E(`{'a': ${a.sql}, 'b': ${b.sql}}`, "struct", deps);
        if (k2 === 1) return E(`[CAST(${a.sql} AS VARCHAR), CAST(${b.sql} AS VARCHAR)]`, "list", deps);
        if (k2 === 2) return E(`map([CAST(${a.sql} AS VARCHAR)], [CAST(${b.sql} AS VARCHAR)])`, "map", deps);
        return E(`row(${a.sql}, ${b.sql})`, "struct", deps);
      }
      case 5: { // unpacking
        this.tag("unpack");
        const a = this.pickColBiased(cols); const b = this.pickColBiased(cols);
        const deps = uniq(a.deps, b.deps); // a whole struct / list / map: both
        const [sql, dep] = d.pick([[`{'a': ${a.sql}, 'b': ${b.sql}}.a`, deps], [`[CAST(${a.sql} AS VARCHAR), CAST(${b.sql} AS VARCHAR)][1]`, deps],
          [`struct_extract({'p': ${a.sql}, 'q': ${b.sql}}, 'q')`, deps], [`list_transform([${a.sql}], x -> x)[1]`, a.deps],
          [`map([CAST(${a.sql} AS VARCHAR)], [CAST(${b.sql} AS VARCHAR)])[CAST(${a.sql} AS VARCHAR)]`, deps]]);
        return E(sql, "any", dep);
      }
      case 6: { // scalar subquery, correlated or not
        this.tag("subquery:select");
        const t = this.table(d.pick(["orders", "support_tickets", "customers", "sales_reps"]));
        const tc = this.colsOf([t]);
        const inner = this.pickColBiased(tc) ?? this.pickCol(tc);
        const corr = cols.filter((c) => c.type === "int");
        if (corr.length && d.chance(0.6)) {
          this.tag("subquery:correlated");
          const o = this.colExpr(d.pick(corr));
          const k3 = this.pickCol(tc, "int");
          this.use("eq", [k3, o], false);
          // a subquery returning a column is that column (lineage), the key is a predicate
          return E(`(SELECT ${inner.sql} FROM ${t.sql} WHERE ${k3.sql} = ${o.sql} LIMIT 1)`, inner.type, inner.deps, { bare: inner.bare });
        }
        return E(`(SELECT ${d.pick(["max", "min", "count"])}(${inner.sql}) FROM ${t.sql})`, inner.type, inner.deps);
      }
      case 7: { // list functions
        this.tag("func:list");
        const a = this.pickColBiased(cols, "str") ?? lit("'x'", "str");
        return E(d.pick([`list_sort(string_split(${a.sql}, ''))`, `len(string_split(${a.sql}, '.'))`, `list_distinct([${a.sql}, ${a.sql}])`,
          `array_to_string(string_split(${a.sql}, '-'), '+')`]), "any", a.deps);
      }
      default: return this.expr(cols, null, 0);
    }
  }

  // ---- SELECT ---------------------------------------------------------------------------------
  // Returns {sql, cols}: cols are the output columns (type, deps, bare).
  select({ maxDepth = 2, want = null, outer = null } = {}) {
    const d = this.d;
    this.depth++;
    const allowDerived = this.depth <= maxDepth;
    const rels = [this.relation(allowDerived)];
    const joins = [];
    const nJoins = d.int(allowDerived ? 3 : 2);
    for (let i = 0; i < nJoins; i++) joins.push(this.join(rels));
    let cols = this.colsOf(rels);
    const where = [];
    for (let i = d.int(3); i > 0; i--) where.push(this.boolExpr(cols, 0, false));
    const grouped = d.chance(0.3);
    let groupSql = "";
    const outCols = [];
    const n = want ? want.length : 1 + d.int(3);
    const items = [];
    if (!grouped && !want && d.chance(0.15)) {
      const star = this.star(rels);
      items.push(star.sql);
      outCols.push(...star.cols);
    } else {
      const keys = [];
      if (grouped) {
        const nk = d.int(3);
        for (let i = 0; i < nk; i++) {
          const c = this.pickColBiased(cols) ?? this.pickCol(cols);
          if (c.bare) this.use("group", [c], false); else this.use("func_key", [c], false);
          keys.push(c);
        }
        if (keys.length) {
          const form = d.int(5);
          const ks = keys.map((k) => k.sql).join(", ");
          if (form === 1) { this.tag("group:grouping_sets"); groupSql = ` GROUP BY GROUPING SETS ((${ks}), ())`; }
          else if (form === 2) { this.tag("group:rollup"); groupSql = ` GROUP BY ROLLUP (${ks})`; }
          else if (form === 3) { this.tag("group:cube"); groupSql = ` GROUP BY CUBE (${ks})`; }
          else { this.tag("group:by"); groupSql = ` GROUP BY ${ks}`; }
        } else this.tag("group:none");
      }
      for (let i = 0; i < n; i++) {
        let e;
        if (want) e = this.typed(cols, want[i], grouped, keys);
        else if (grouped && keys.length && d.chance(0.4)) e = d.pick(keys);
        else e = this.outputExpr(cols, grouped, rels);
        const name = `o${i}`;
        items.push(`${e.sql} AS ${name}`);
        outCols.push({ name, type: e.type, deps: e.deps, bare: e.bare });
      }
    }
    const distinct = d.chance(0.1);
    if (distinct) { // DISTINCT groups by every output: a key like GROUP BY
      this.tag("distinct");
      for (const c of outCols) this.use(c.bare ? "group" : "func_key", [E("", c.type, c.deps, { bare: c.bare ?? null })], false);
    }
    let sql = `SELECT ${distinct ? "DISTINCT " : ""}${items.join(", ")} FROM ${rels[0].sql}${joins.join("")}`;
    if (where.length) sql += ` WHERE ${where.map((w) => w.sql).join(" AND ")}`;
    sql += groupSql;
    if (grouped && groupSql && d.chance(0.3)) {
      this.tag("having");
      const a = this.pickColBiased(cols, d.pick(["str", "int"])) ?? this.pickCol(cols);
      const agg = E(`max(${a.sql})`, a.type, a.deps);
      this.use(d.chance(0.5) ? "range" : "eq", [agg, lit(a.type === "int" ? "0" : "'m'", a.type)], false);
      sql += ` HAVING ${agg.sql} ${d.pick([">", "="])} ${a.type === "int" ? "0" : "'m'"}`;
    }
    if (!grouped && d.chance(0.12)) {
      this.tag("qualify");
      const part = this.pickColBiased(cols);
      if (part.bare) this.use("group", [part], false); else this.use("func_key", [part], false);
      const ord = this.pickColBiased(cols, "int") ?? part;
      this.use("order", [ord], false);
      this.use("func", [E("rn", "int", uniq(part.deps, ord.deps))], false);
      sql += ` QUALIFY row_number() OVER (PARTITION BY ${part.sql} ORDER BY ${ord.sql}) ${d.pick(["= 1", "<= 2"])}`;
    }
    if (d.chance(0.3) && !want) {
      this.tag("order_by");
      const o = d.chance(0.5) && outCols.length && !outCols.some((c) => c.name === "*") ? null : (grouped ? null : this.pickColBiased(cols));
      if (o) { this.use("order", [o], false); sql += ` ORDER BY ${o.sql}`; }
      else sql += " ORDER BY 1";
      if (!o && outCols[0]) this.use("order", [E("", "any", outCols[0].deps, { bare: outCols[0].bare })], false);
    }
    if (d.chance(0.3)) sql += ` LIMIT ${1 + d.int(50)}`;
    this.depth--;
    return { sql, cols: outCols };
  }

  // An output of a required type (set operations and recursive CTEs line columns up by type).
  typed(cols, type, grouped, keys) {
    if (grouped) {
      const k = keys.find((x) => x.type === type);
      if (k) return k;
      if (type === "int") return E("count(*)", "int");
      const c = this.pickCol(cols, type) ?? lit("'x'", "str");
      return E(`max(${c.sql})`, type, c.deps);
    }
    return this.pickColBiased(cols, type) ?? (type === "int" ? lit("0", "int") : lit("'x'", "str"));
  }

  star(rels) {
    const d = this.d;
    const rel = d.chance(0.5) ? d.pick(rels) : null;
    const prefix = rel ? `${rel.alias}.` : "";
    let cols = rel ? rel.cols : rels.flatMap((r) => r.cols);
    const k = d.int(5);
    this.tag("star");
    const names = [...new Set(cols.map((c) => c.name))];
    if (k === 1) {
      this.tag("star:exclude");
      const ex = names.filter((n) => n === "ssn" || n === "email" || d.chance(0.2)).slice(0, Math.max(1, d.int(4)));
      const drop = d.chance(0.2) ? ex.slice(0, -1) : ex; // sometimes forget one
      if (!drop.length || cols.every((c) => drop.includes(c.name))) return { sql: `${prefix}*`, cols };
      return { sql: `${prefix}* EXCLUDE (${drop.join(", ")})`, cols: cols.filter((c) => !drop.includes(c.name)) };
    }
    if (k === 2 && rel) {
      this.tag("star:replace");
      const target = cols.find((c) => c.type === "str");
      if (!target) return { sql: `${prefix}*`, cols };
      const ex = names.filter((n) => (n === "ssn" || n === "email") && n !== target.name);
      const withEx = ex.length ? ` EXCLUDE (${ex.join(", ")})` : "";
      const kept = cols.filter((c) => !ex.includes(c.name));
      const src = d.chance(0.5) ? cols.find((c) => c.name === "ssn" || c.name === "email") ?? target : target;
      const repl = `upper(${prefix}${src.name})`;
      return { sql: `${prefix}*${withEx} REPLACE (${repl} AS ${target.name})`,
               cols: kept.map((c) => (c.name === target.name ? { ...c, deps: uniq(c.deps, src.deps), bare: null } : c)) };
    }
    if (k === 3) {
      this.tag("star:columns");
      const pats = ["'^(id|name|plan)$'", "'.*_at'", "'s.*'", "'e.*'", "'^n'", "'i'", "'^(status|region|segment)$'"];
      const p = d.pick(pats);
      const re = new RegExp(p.slice(1, -1));
      const matched = cols.filter((c) => re.test(c.name)); // partial match (RE2 search), a superset of a full match
      if (!matched.length) return { sql: `${prefix}*`, cols };
      const e = d.chance(0.5) && !rel ? `COLUMNS(${p})` : `COLUMNS(${p})`;
      return { sql: e, cols: rels.flatMap((r) => r.cols).filter((c) => re.test(c.name)) };
    }
    return { sql: `${prefix}*`, cols };
  }

  join(rels) {
    const d = this.d;
    const left = [...rels].reverse().find((r) => r.cols.length) ?? rels[0];
    const kind = d.int(11);
    const names = ["inner", "left", "right", "full", "cross", "semi", "anti", "asof", "positional", "lateral", "using"];
    this.tag("join:" + names[kind]);
    if (kind === 9) { // LATERAL: a correlated subquery or unnest in FROM
      const a = this.alias("l");
      const lc = this.colsOf([left]);
      if (d.chance(0.5)) {
        const c = this.pickColBiased(lc, "str") ?? this.pickColBiased(lc);
        rels.push({ alias: a, cols: [{ name: "x", type: c.type, deps: c.deps, bare: null }] });
        return `, LATERAL unnest([${c.sql}, ${c.sql}]) ${a}(x)`;
      }
      const t = this.table(d.pick(["orders", "support_tickets", "contacts"]));
      const tc = this.colsOf([t]);
      const o = this.pickCol(lc, "int") ?? lit("1", "int");
      const inner = this.pickColBiased(tc);
      const k = this.pickCol(tc, "int");
      this.use("eq", [k, o], false);
      rels.push({ alias: a, cols: [{ name: "x", type: inner.type, deps: uniq(inner.deps), bare: inner.bare }] });
      return `, LATERAL (SELECT ${inner.sql} AS x FROM ${t.sql} WHERE ${k.sql} = ${o.sql} LIMIT ${1 + d.int(3)}) ${a}`;
    }
    // Cross, positional and joins on arbitrary predicates take a small relation (sales_reps, a
    // generated one) so statements stay fast; foreign-key joins may take any table.
    const small = () => (d.chance(0.5) ? this.table("sales_reps") : this.generated());
    const fkTables = FKS.filter(([t1, , t2]) => t1 === left.table || t2 === left.table).map(([t1, , t2]) => (t1 === left.table ? t2 : t1));
    const right = kind === 4 || kind === 8 || !fkTables.length || d.chance(0.4) ? small() : this.table(d.pick(fkTables));
    if (kind === 4) { rels.push(right); return ` CROSS JOIN ${right.sql}`; }
    if (kind === 8) { rels.push(right); return ` POSITIONAL JOIN ${right.sql}`; }
    const lc = this.colsOf([left]);
    const rc = this.colsOf([right]);
    if (kind === 10) { // USING / NATURAL on shared names
      const shared = left.cols.filter((c) => right.cols.some((r) => r.name === c.name && r.type === c.type));
      if (!shared.length || right.cols.length < 2) { rels.push(right); return ` CROSS JOIN ${right.sql}`; }
      const s = d.pick(shared);
      const rcol = right.cols.find((r) => r.name === s.name);
      this.use("eq", [this.colExpr({ ...s, ref: "" }), this.colExpr({ ...rcol, ref: "" })], false);
      rels.push({ ...right, cols: right.cols.filter((c) => c.name !== s.name) });
      // USING merges the key: the merged column is the left one, its deps both.
      left.cols = left.cols.map((c) => (c.name === s.name ? { ...c, deps: uniq(c.deps, rcol.deps) } : c));
      return ` JOIN ${right.sql} USING (${s.name})`;
    }
    // ON condition: a foreign key, a blocked-field key, or a random predicate
    let on;
    const mark = this.uses.length;
    const fk = FKS.find(([t1, , t2]) => (t1 === left.table && t2 === right.table) || (t2 === left.table && t1 === right.table));
    const r = d.int(4);
    if ((r <= 1 || !SMALL.has(right.table ?? "generated")) && fk) {
      const [t1, c1, , c2] = fk;
      const [lcName, rcName] = t1 === left.table ? [c1, c2] : [c2, c1];
      const ca = lc.find((c) => c.name === lcName), cb = rc.find((c) => c.name === rcName);
      if (ca && cb) { // (a USING join may have merged the key away)
        const a = this.colExpr(ca), b = this.colExpr(cb);
        this.use("eq", [a, b], false);
        on = `${a.sql} = ${b.sql}`;
      }
    } else if (r === 2) {
      const a = this.pickColBiased(lc, "str"); const b = a && this.pickColBiased(rc, "str");
      if (a && b) { this.use("eq", [a, b], false); on = `${a.sql} = ${b.sql}`; }
    }
    let asof = "";
    if (kind === 7) { // ASOF needs an inequality
      const a = this.pickColBiased(lc, "int"); const b = a && this.pickColBiased(rc, "int");
      if (!a || !b) { this.uses.length = mark; rels.push(right); return ` CROSS JOIN ${right.sql}`; }
      this.use("range", [a, b], false);
      asof = ` AND ${a.sql} >= ${b.sql}`;
    }
    if (!on) on = this.boolExpr(this.colsOf([left, right]), 1, false).sql;
    on += asof;
    const kw = { 0: "JOIN", 1: "LEFT JOIN", 2: "RIGHT JOIN", 3: "FULL JOIN", 5: "SEMI JOIN", 6: "ANTI JOIN", 7: "ASOF JOIN" }[kind];
    if (kind !== 5 && kind !== 6) rels.push(right);
    return ` ${kw} ${right.sql} ON ${on}`;
  }

  // ---- statements -------------------------------------------------------------------------------
  statement() {
    const d = this.d;
    const k = d.int(20);
    let body;
    // PostgreSQL mode (issue 21): a quarter of the draws (choices that are mostly DuckDB-only
    // syntax there: part of the plain SELECTs, PIVOT/shapes, the simple attacks, error channels)
    // become PostgreSQL-specific shapes; the other choices keep their draws, so regression seeds
    // of the other branches replay the same statement.
    if (this.engine === "postgres" && (k === 7 || k === 8 || (k >= 16 && k < 19))) body = this.pgShape();
    else if (k < 9) body = this.select();
    else if (k < 11) body = this.setop();
    else if (k < 13) body = this.cte();
    else if (k < 14) body = this.recursive();
    else if (k < 16) body = this.attack();
    else if (k < 17) body = this.attackSimple();
    else if (k < 18) body = d.chance(0.2) ? this.pivot() : this.shapes();
    else if (k < 19) body = this.errorChannel();
    else body = this.escape();
    this.outputs = body.cols;
    return body.sql;
  }

  setop() {
    const d = this.d;
    const op = d.pick(["UNION", "UNION ALL", "INTERSECT", "EXCEPT", "UNION BY NAME"]);
    this.tag("setop:" + op.toLowerCase().replace(/ /g, "_"));
    const want = Array.from({ length: 1 + d.int(2) }, () => d.pick(["str", "int"]));
    const a = this.select({ want, maxDepth: 1 });
    const b = this.select({ want, maxDepth: 1 });
    const cols = a.cols.map((c, i) => ({ ...c, deps: uniq(c.deps, b.cols[i].deps), bare: null }));
    return { sql: `(${a.sql}) ${op} (${b.sql})`, cols };
  }

  cte() {
    this.tag("cte");
    const a = this.alias("w");
    const inner = this.select({ maxDepth: 1 });
    const cols = inner.cols.map((c, i) => ({ name: `c${i}`, type: c.type, deps: c.deps, bare: c.bare }));
    const rel = { sql: a, alias: a, cols };
    const d = this.d;
    const outs = [];
    const items = [];
    for (let i = 0; i < 1 + d.int(2); i++) {
      const pc = d.pick(cols);
      const e = d.chance(0.7) ? this.colExpr({ ...pc, ref: `${a}.${pc.name}` }) : this.expr(this.colsOf([rel]), null, 1);
      items.push(`${e.sql} AS o${i}`);
      outs.push({ name: `o${i}`, type: e.type, deps: e.deps, bare: e.bare });
    }
    let where = "";
    if (d.chance(0.4)) where = ` WHERE ${this.boolExpr(this.colsOf([rel]), 0, false).sql}`;
    const sql = `WITH ${a}(${cols.map((c) => c.name).join(", ")}) AS ${d.chance(0.2) ? "MATERIALIZED " : ""}(${inner.sql}) SELECT ${items.join(", ")} FROM ${a}${where}`;
    return { sql, cols: outs };
  }

  recursive() {
    const d = this.d;
    this.tag("cte:recursive");
    const t = this.table(d.pick(["customers", "sales_reps"]));
    const tc = this.colsOf([t]);
    const c = this.pickColBiased(tc, "str");
    const idc = tc.find((x) => x.name === "id");
    const step = d.pick([`substr(s, 2)`, `s`, `upper(s)`, `reverse(s)`]);
    const outS = d.chance(0.6);
    const sql = `WITH RECURSIVE r(i, s) AS (SELECT 1, ${c.sql} FROM ${t.sql} WHERE ${idc.ref} = ${1 + d.int(40)} UNION ALL SELECT i + 1, ${step} FROM r WHERE i < ${1 + d.int(4)}) SELECT i${outS ? ", s" : ", length(s) > 0 AS nonempty"} FROM r ORDER BY i`;
    const sdeps = c.deps;
    const cols = [{ name: "i", type: "int", deps: new Set() }, { name: "s", type: "str", deps: sdeps }];
    if (!outS) this.use("func", [E("", "str", sdeps)], false);
    return { sql, cols: outS ? cols : [cols[0], { name: "nonempty", type: "bool", deps: sdeps }] };
  }

  // ---- PostgreSQL dialect ---------------------------------------------------------------------
  // The shapes issue 21 names, each over a column that is blocked now and then (pickColBiased),
  // judged by the same uses/outputs as everything else: recursive CTEs (forward references in a
  // WITH RECURSIVE list, SEARCH / CYCLE), set-returning functions in FROM (generate_series,
  // unnest, json_array_elements_text, ROWS FROM, WITH ORDINALITY, LATERAL), NATURAL / USING joins
  // (also against generated columns), VALUES lists, casts inside subqueries, DISTINCT ON, FILTER,
  // and PostgreSQL's implicit column names ("?column?", "case", "value", a function's name).
  pgShape() {
    const d = this.d;
    const t = this.table(d.pick(["customers", "customers", "sales_reps"]));
    const tc = this.colsOf([t]);
    const X = this.pickColBiased(tc, "str");
    const id = `${t.alias}.id`;
    const n = 1 + d.int(40);
    const out = (name, e) => ({ name, type: e.type ?? "str", deps: e.deps, bare: e.bare ?? null });
    const I = E("", "int");
    const kind = d.int(12);
    const names = ["forward_cte", "search_cycle", "srf", "rows_from", "natural", "using_generated", "values", "cast_subquery",
      "distinct_on", "filter", "implicit_name", "json_value"];
    this.tag("pg:" + names[kind]);
    switch (kind) {
      case 0: { // a forward reference inside a WITH RECURSIVE list: a's s is b's column
        const sql = `WITH RECURSIVE a(i, s) AS (SELECT i, s FROM b), b(i, s) AS (SELECT ${id}, ${X.sql} FROM ${t.sql} WHERE ${id} = ${n}) SELECT i${d.chance(0.5) ? ", s" : ""} FROM a`;
        const cols = [out("i", I)];
        if (sql.includes(", s FROM a")) cols.push(out("s", X));
        return { sql, cols };
      }
      case 1: { // SEARCH orders by, CYCLE compares the recursive column; both outputs derive from it
        const search = d.chance(0.5);
        const clause = search ? `SEARCH ${d.pick(["DEPTH", "BREADTH"])} FIRST BY s SET ord` : "CYCLE s SET is_cycle USING path";
        const o = search ? "ord" : d.pick(["is_cycle", "path"]);
        this.use(search ? "order" : "func", [X], false);
        const sql = `WITH RECURSIVE r(i, s) AS (SELECT 1, ${X.sql} FROM ${t.sql} WHERE ${id} = ${n} UNION ALL SELECT i + 1, s FROM r WHERE i < ${1 + d.int(3)}) ${clause} SELECT i, ${o} FROM r`;
        return { sql, cols: [out("i", I), out(o, E("", "any", X.deps))] };
      }
      case 2: { // a set-returning function in FROM, LATERAL over the table, maybe WITH ORDINALITY
        const f = d.pick([`generate_series(1, length(${X.sql}))`, `unnest(ARRAY[${X.sql}, 'a'])`,
          `json_array_elements_text(json_build_array(${X.sql}, 'b'))`, `unnest(string_to_array(${X.sql}, '-'))`,
          `regexp_split_to_table(${X.sql}, '')`, `generate_series(1, 3)`]);
        const ord = d.chance(0.4);
        const fromX = !f.startsWith("generate_series(1, 3)");
        if (fromX) this.use("func", [X], true);
        const yDeps = fromX ? X.deps : new Set();
        const sql = `SELECT ${t.alias}.id, g.y${ord ? ", g.n" : ""} FROM ${t.sql}${d.chance(0.5) ? "," : " CROSS JOIN"} LATERAL ${f}${ord ? " WITH ORDINALITY" : ""} g(y${ord ? ", n" : ""}) WHERE ${id} = ${n}`;
        const cols = [out("id", I), out("y", E("", "any", yDeps))];
        if (ord) cols.push(out("n", I));
        return { sql, cols };
      }
      case 3: { // ROWS FROM zips two set-returning functions, one of them over the column
        this.use("func", [X], true);
        const ord = d.chance(0.5);
        const sql = `SELECT g.k, g.ch FROM ${t.sql}, LATERAL ROWS FROM (generate_series(1, 40), regexp_split_to_table(${X.sql}, ''))${ord ? " WITH ORDINALITY" : ""} g(k, ch${ord ? ", n" : ""}) WHERE ${id} = ${n} AND g.ch = '${d.pick(CHARS)}'`;
        return { sql, cols: [out("k", I), out("ch", E("", "str", X.deps))] };
      }
      case 4: { // NATURAL JOIN: customers and sales_reps share id, name, email (equated at the top level)
        const sql = `SELECT c.id, r.region FROM customers c NATURAL ${d.pick(["", "LEFT ", "INNER "])}JOIN sales_reps r`;
        for (const k of ["id", "name", "email"]) this.use("eq", [E("", "any", new Set([`customers.${k}`]), { bare: `customers.${k}` }), E("", "any", new Set([`sales_reps.${k}`]), { bare: `sales_reps.${k}` })], false);
        return { sql, cols: [out("id", E("", "int", new Set(["customers.id"]), { bare: "customers.id" })), out("region", E("", "str", new Set(["sales_reps.region"]), { bare: "sales_reps.region" }))] };
      }
      case 5: { // USING / NATURAL against a generated column named like the table's column
        const gen = d.pick([`(SELECT x::text AS ${X.bare ? X.bare.split(".")[1] : "name"} FROM generate_series(0, 9) x)`,
          `(SELECT v AS ${X.bare ? X.bare.split(".")[1] : "name"} FROM unnest(ARRAY['a', 'b', '1']) v)`,
          `(VALUES ('a'), ('0')) AS v0(${X.bare ? X.bare.split(".")[1] : "name"})`]);
        const colName = X.bare ? X.bare.split(".")[1] : "name";
        const tbl = X.bare ? X.bare.split(".")[0] : t.table;
        const natural = d.chance(0.4) && !gen.startsWith("(VALUES");
        const g = gen.startsWith("(VALUES") ? gen : `${gen} g`;
        const sql = natural ? `SELECT count(*) AS n FROM ${tbl} NATURAL JOIN ${g}` : `SELECT count(*) AS n FROM ${tbl} JOIN ${g} USING (${colName})`;
        this.use("eq", [E("", "str", new Set([`${tbl}.${colName}`]), { bare: `${tbl}.${colName}` }), E("", "str")], false);
        return { sql, cols: [out("n", I)] };
      }
      case 6: { // VALUES lists: in FROM over the row (LATERAL), or as an IN list
        if (d.chance(0.5)) {
          const sql = `SELECT v.a FROM ${t.sql}, LATERAL (VALUES (${X.sql}), ('z')) v(a) WHERE ${id} = ${n}`;
          return { sql, cols: [out("a", E("", "str", X.deps))] };
        }
        this.use("inlist", [X], false);
        return { sql: `SELECT ${id} AS id FROM ${t.sql} WHERE ${X.sql} IN (VALUES ('a'), ('${d.pick(CHARS)}'))`, cols: [out("id", I)] };
      }
      case 7: { // a cast inside a subquery: the cast's error would carry the value
        const ty = d.pick(["int", "date", "numeric", "uuid", "boolean"]);
        this.use("func", [X], true);
        if (d.chance(0.5)) {
          return { sql: `SELECT ${id} AS id FROM ${t.sql} WHERE ${id} IN (SELECT s.id FROM ${t.table} s WHERE CAST(s.${X.bare.split(".")[1]} AS ${ty}) IS NOT NULL)`, cols: [out("id", I)] };
        }
        return { sql: `SELECT ${id} AS id, (SELECT ${X.sql}::${ty}) AS v FROM ${t.sql} WHERE ${id} = ${n}`, cols: [out("id", I), out("v", E("", "any", X.deps))] };
      }
      case 8: { // DISTINCT ON: a key (engine-specific row: refused where PostgreSQL sorts by it)
        const k = this.pickColBiased(tc) ?? X;
        this.use(k.bare ? "group" : "func_key", [k], false);
        this.use("order", [k], false); // DISTINCT ON needs its key to lead the ORDER BY
        return { sql: `SELECT DISTINCT ON (${k.sql}) ${id} AS id FROM ${t.sql} ORDER BY ${k.sql}, ${id}`, cols: [out("id", I)] };
      }
      case 9: { // FILTER is the aggregate's own WHERE: judged like a WHERE (a count of matches)
        const p = this.boolExpr(tc, 1, false);
        return { sql: `SELECT count(*) FILTER (WHERE ${p.sql}) AS n FROM ${t.sql}`, cols: [out("n", I)] };
      }
      case 10: { // implicit column names: "?column?", "case", a function's name
        const [expr, name] = d.pick([[`${X.sql} || ''`, `"?column?"`], [`CASE WHEN ${id} > 0 THEN ${X.sql} END`, `"case"`],
          [`upper(${X.sql})`, "upper"], [`${X.sql}::text`, X.bare ? X.bare.split(".")[1] : "name"],
          [`encode(convert_to(${X.sql}, 'UTF8'), 'base64')`, "encode"], [`convert_to(${X.sql}, 'UTF8')`, "convert_to"],
          [`translate(${X.sql}, '-', '+')`, "translate"], [`regexp_replace(${X.sql}, '-', '', 'g')`, "regexp_replace"],
          [`string_to_array(${X.sql}, NULL)`, "string_to_array"], [`reverse(${X.sql})`, "reverse"],
          [`ARRAY(SELECT ascii(ch) FROM regexp_split_to_table(${X.sql}, '') ch)`, `"array"`], [`ascii(${X.sql})`, "ascii"]]);
        const sql = `SELECT s.${name} FROM (SELECT ${id}, ${expr} FROM ${t.sql}) s`;
        return { sql, cols: [out("x", E("", "str", X.deps))] };
      }
      default: { // json_array_elements_text's implicit "value" column
        const sql = `SELECT value FROM ${t.sql}, json_array_elements_text(json_build_array(${X.sql})) WHERE ${id} = ${n}`;
        this.use("func", [X], true);
        return { sql, cols: [out("value", E("", "str", X.deps))] };
      }
    }
  }

  // The known reconstructions: a generated domain equated with a blocked value or a function of
  // it (per character, per prefix, by comparison), with outputs from the generated side only.
  // Combines a source of the value (the column, or the column passed through a derived table,
  // CTE, set operation, LATERAL, struct, list, map, JSON, aggregate, window, VALUES, cast), a
  // test (per-character equality, indexing, ranges, patterns, positions, IN, joins), where the
  // test sits (WHERE, JOIN ON, HAVING, QUALIFY, a column a subquery computed, an aggregate's
  // FILTER, IN / EXISTS subqueries) and how the answer comes back (rows ordered by position, or
  // the whole value in one cell with string_agg / list). Every one is refused by the contract.
  attack() {
    const d = this.d;
    const tbl = d.pick(["customers", "customers", "sales_reps"]);
    const col = tbl === "customers" ? d.pick(["ssn", "email"]) : "email";
    const t = this.table(tbl);
    const id = 1 + d.int(40);
    const C = `${t.alias}.${col}`;
    const srcKinds = ["column", "derived", "cte", "union", "lateral", "struct", "list", "map", "json", "agg", "window", "values", "cast", "coalesce", "concat", "unnest"];
    const sk = d.int(srcKinds.length);
    this.tag("attack:source:" + srcKinds[sk]);
    // src: {from, T, where}: FROM items, the expression holding the value, the row filter
    const base = { from: t.sql, where: `${t.alias}.id = ${id}` };
    const src = [
      () => ({ ...base, T: C }),
      () => ({ from: `(SELECT ${col} AS v, id FROM ${tbl}) sv`, T: "sv.v", where: `sv.id = ${id}` }),
      () => ({ cte: `WITH sv AS (SELECT ${col} AS v FROM ${tbl} WHERE id = ${id}) `, from: "sv", T: "sv.v", where: "true" }),
      () => ({ from: `(SELECT ${col} AS v FROM ${tbl} WHERE id = ${id} UNION ALL SELECT 'zz') sv`, T: "sv.v", where: "true" }),
      () => ({ from: `${t.sql}, LATERAL (SELECT ${C} AS v) sv`, T: "sv.v", where: base.where }),
      () => ({ from: `(SELECT {'v': ${col}} AS s, id FROM ${tbl}) sv`, T: "sv.s.v", where: `sv.id = ${id}` }),
      () => ({ ...base, T: `[${C}, 'x'][1]` }),
      () => ({ ...base, T: `map(['k'], [${C}])['k']` }),
      () => ({ ...base, T: `(to_json(${C}) ->> '$')` }),
      () => ({ from: `(SELECT string_agg(${col}, '') AS v FROM ${tbl} WHERE id = ${id}) sv`, T: "sv.v", where: "true" }),
      () => ({ from: `(SELECT first_value(${col}) OVER (ORDER BY id) AS v, id FROM ${tbl}) sv`, T: "sv.v", where: `sv.id = ${id}` }),
      () => ({ from: `(VALUES ((SELECT ${col} FROM ${tbl} WHERE id = ${id}))) sv(v)`, T: "sv.v", where: "true" }),
      () => ({ ...base, T: `CAST(${C} AS VARCHAR)` }),
      () => ({ ...base, T: `coalesce(${C}, '')` }),
      () => ({ ...base, T: `(${C} || '')` }),
      () => ({ from: `${t.sql}, LATERAL unnest([${C}]) sv(v)`, T: "sv.v", where: base.where }),
    ][sk]();
    const P = "range(0, 32) p(pos)";
    const D = `unnest([${CHARS.map((c) => `'${c}'`).join(", ")}]) ch(c)`;
    const T = src.T;
    const tests = [
      `substr(${T}, p.pos::INTEGER, 1) = ch.c`, `${T}[p.pos::INTEGER] = ch.c`, `string_split(${T}, '')[p.pos::INTEGER] = ch.c`,
      `substring(${T}, p.pos::INTEGER, 1) >= ch.c AND substring(${T}, p.pos::INTEGER, 1) <= ch.c`,
      `strpos(substr(${T}, p.pos::INTEGER), ch.c) = 1`, `instr(substr(${T}, p.pos::INTEGER), ch.c) = 1`, `substr(${T}, p.pos::INTEGER, 1) LIKE ch.c`,
      `starts_with(substr(${T}, p.pos::INTEGER), ch.c)`, `regexp_matches(substr(${T}, p.pos::INTEGER, 1), '^' || regexp_escape(ch.c) || '$')`,
      `ascii(substr(${T}, p.pos::INTEGER, 1)) = ascii(ch.c)`, `substr(${T}, p.pos::INTEGER, 1) IN (ch.c)`,
      `list_contains([substr(${T}, p.pos::INTEGER, 1)], ch.c)`, `hash(substr(${T}, p.pos::INTEGER, 1)) = hash(ch.c)`,
      `substr(${T}, p.pos::INTEGER, 1) IS NOT DISTINCT FROM ch.c`, `NOT (substr(${T}, p.pos::INTEGER, 1) <> ch.c)`,
      `CASE WHEN substr(${T}, p.pos::INTEGER, 1) = ch.c THEN true ELSE false END`,
    ];
    const ti = d.int(tests.length);
    const test = tests[ti];
    this.tag("attack:test:" + ["substr", "index", "split", "range", "strpos", "instr", "like", "starts_with", "regexp", "ascii", "in", "list_contains", "hash", "not_distinct", "not", "case"][ti]);
    this.dirtyNow.add("predicate:attack");
    const where = `${src.where} AND `;
    const cte = src.cte ?? "";
    const places = ["where", "join_on", "having", "qualify", "computed", "filter", "in", "exists", "semi",
      "left_join", "recursive", "using", "intersect", "in_tuple", "scalar", "lateral", "order_subquery", "argmax", "case_output", "window_pick"];
    const pl = d.int(places.length);
    this.tag("attack:place:" + places[pl]);
    const genCols = [{ name: "pos", type: "int", deps: new Set() }, { name: "c", type: "str", deps: new Set() }];
    const one = [{ name: "v", type: "str", deps: new Set() }];
    const agg = d.pick([`string_agg(ch.c, '' ORDER BY p.pos)`, `list(ch.c ORDER BY p.pos)`]);
    switch (places[pl]) {
      case "where": return d.chance(0.5)
        ? { sql: `${cte}SELECT p.pos, ch.c FROM ${P}, ${D}, ${src.from} WHERE ${where}${test} ORDER BY p.pos`, cols: genCols }
        : { sql: `${cte}SELECT ${agg} AS v FROM ${P}, ${D}, ${src.from} WHERE ${where}${test}`, cols: one };
      case "join_on": return { sql: `${cte}SELECT p.pos, ch.c FROM ${src.from} JOIN ${P} ON ${src.where} JOIN ${D} ON ${test} ORDER BY p.pos`, cols: genCols };
      case "having": return { sql: `${cte}SELECT p.pos, ch.c FROM ${P}, ${D}, ${src.from} WHERE ${src.where} GROUP BY p.pos, ch.c HAVING bool_or(${test}) ORDER BY p.pos`, cols: genCols };
      case "qualify": return { sql: `${cte}SELECT p.pos, ch.c FROM ${P}, ${D}, ${src.from} WHERE ${src.where} QUALIFY bool_or(${test}) OVER (PARTITION BY p.pos, ch.c) ORDER BY p.pos`, cols: genCols };
      case "computed": return { sql: `${cte}SELECT pos, c FROM (SELECT p.pos, ch.c, (${test}) AS hit FROM ${P}, ${D}, ${src.from} WHERE ${src.where}) WHERE hit ORDER BY pos`, cols: genCols };
      case "filter": return { sql: `${cte}SELECT ${agg} FILTER (WHERE ${test}) AS v FROM ${P}, ${D}, ${src.from} WHERE ${src.where}`, cols: one };
      case "in": return { sql: `${cte}SELECT p.pos, ch.c FROM ${P}, ${D} WHERE ch.c IN (SELECT substr(${T}, p.pos::INTEGER, 1) FROM ${src.from} WHERE ${src.where}) ORDER BY p.pos`, cols: genCols };
      case "exists": return { sql: `${cte}SELECT p.pos, ch.c FROM ${P}, ${D} WHERE EXISTS (SELECT 1 FROM ${src.from} WHERE ${where}${test}) ORDER BY p.pos`, cols: genCols };
      case "left_join": return { sql: `${cte}SELECT p.pos, CASE WHEN z.hit IS NULL THEN '' ELSE ch.c END AS c FROM ${P} CROSS JOIN ${D} LEFT JOIN (SELECT 1 AS hit, ${T} AS v FROM ${src.from} WHERE ${src.where}) z ON ${test.replaceAll(T, "z.v")} ORDER BY p.pos`, cols: genCols };
      case "recursive": return { sql: `${cte}${cte ? ", " : "WITH "}RECURSIVE r(pos, acc) AS (SELECT 0, '' UNION ALL SELECT r.pos + 1, r.acc || coalesce((SELECT max(ch.c) FROM ${D}, (SELECT r.pos + 1 AS pos) p, ${src.from} WHERE ${where}${test}), '') FROM r WHERE r.pos < 31) SELECT max(acc) AS v FROM r`.replace("WITH sv AS", "WITH sv AS").replace(/^WITH (.*?) , RECURSIVE/, "WITH RECURSIVE $1, "), cols: one };
      case "using": return { sql: `${cte}SELECT z.pos, ch.c FROM (SELECT p.pos, substr(${T}, p.pos::INTEGER, 1) AS c FROM ${P}, ${src.from} WHERE ${src.where}) z JOIN ${D} USING (c) ORDER BY z.pos`, cols: genCols };
      case "intersect": return { sql: `${cte}SELECT p.pos, ch.c FROM ${P}, ${D} INTERSECT SELECT p.pos, substr(${T}, p.pos::INTEGER, 1) FROM ${P}, ${src.from} WHERE ${src.where} ORDER BY 1`, cols: genCols };
      case "in_tuple": return { sql: `${cte}SELECT p.pos, ch.c FROM ${P}, ${D} WHERE (p.pos, ch.c) IN (SELECT q.pos, substr(${T}, q.pos::INTEGER, 1) FROM range(0, 32) q(pos), ${src.from} WHERE ${src.where}) ORDER BY p.pos`, cols: genCols };
      case "scalar": return { sql: `${cte}SELECT p.pos, ch.c FROM ${P}, ${D} WHERE ch.c = (SELECT substr(${T}, p.pos::INTEGER, 1) FROM ${src.from} WHERE ${src.where} LIMIT 1) ORDER BY p.pos`, cols: genCols };
      case "lateral": return { sql: `${cte}SELECT p.pos, ch.c FROM ${P}, ${D}, LATERAL (SELECT 1 AS ok FROM ${src.from} WHERE ${where}${test}) l ORDER BY p.pos`, cols: genCols };
      case "order_subquery": return { sql: `${cte}SELECT p.pos, (SELECT ch.c FROM ${D}, ${src.from} WHERE ${src.where} ORDER BY (${test}) DESC LIMIT 1) AS c FROM ${P} ORDER BY p.pos`, cols: genCols };
      case "argmax": {
        const pickAgg = d.pick([`arg_max(ch.c, (${test})::INTEGER)`, `max_by(ch.c, (${test})::INTEGER)`, `arg_min(ch.c, (NOT (${test}))::INTEGER)`,
          `first(ch.c ORDER BY (${test}) DESC)`, `list(ch.c ORDER BY (${test}) DESC)[1]`, `string_agg(ch.c, '' ORDER BY (${test}) DESC)[1]`,
          `last(ch.c ORDER BY (${test}))`, `min(CASE WHEN ${test} THEN ch.c END)`]);
        return { sql: `${cte}SELECT p.pos, ${pickAgg} AS c FROM ${P}, ${D}, ${src.from} WHERE ${src.where} GROUP BY p.pos ORDER BY p.pos`, cols: genCols };
      }
      case "case_output": {
        const out = d.pick([`CASE WHEN ${test} THEN ch.c ELSE '' END`, `if(${test}, ch.c, '')`, `repeat(ch.c, (${test})::INTEGER)`,
          `left(ch.c, (${test})::INTEGER)`, `substr(ch.c, 1, (${test})::INTEGER)`, `coalesce(CASE WHEN ${test} THEN ch.c END, '')`,
          `array_to_string(list_filter([ch.c], x -> ${test}), '')`, `[ch.c, ''][1 + (NOT (${test}))::INTEGER]`,
          `CASE (${test}) WHEN true THEN ch.c ELSE '' END`, `concat_ws('', CASE WHEN ${test} THEN ch.c END)`]);
        return { sql: `${cte}SELECT string_agg(${out}, '' ORDER BY p.pos) AS v FROM ${P}, ${D}, ${src.from} WHERE ${src.where}`, cols: one };
      }
      case "window_pick": return { sql: `${cte}SELECT DISTINCT p.pos, first_value(ch.c) OVER (PARTITION BY p.pos ORDER BY (${test}) DESC) AS c FROM ${P}, ${D}, ${src.from} WHERE ${src.where} ORDER BY p.pos`, cols: genCols };
      default: return { sql: `${cte}SELECT p.pos, ch.c FROM ${P} CROSS JOIN ${D} SEMI JOIN (SELECT ${T} AS v FROM ${src.from} WHERE ${src.where}) z ON ${test.replaceAll(T, "z.v")} ORDER BY p.pos`, cols: genCols };
    }
  }

  // The older single-shape attacks: domain joins, binary search, ORDER BY ... LIMIT.
  attackSimple() {
    const d = this.d;
    const t = this.table(d.pick(["customers", "customers", "sales_reps"]));
    const want = d.pick(t.table === "customers" ? ["ssn", "email"] : ["email"]);
    const target = this.colExpr(this.colsOf([t]).find((c) => c.name === want));
    const id = `${t.alias}.id = ${1 + d.int(40)}`;
    const k = d.int(3);
    this.tag("attack:" + ["domain_join", "binary_search", "order_limit"][k]);
    switch (k) {
      case 0: { const g = this.generated(); const gx = `${g.alias}.x`; this.use("eq", [target, E(gx, "str", new Set(), { generated: true })], false);
        return { sql: `SELECT ${gx} AS guess FROM ${g.sql} JOIN ${t.sql} ON ${target.sql} = CAST(${gx} AS VARCHAR)`, cols: [{ name: "guess", type: "str", deps: new Set() }] }; }
      case 1: this.use("range", [target], false);
        return { sql: `SELECT count(*) AS n FROM ${t.sql} WHERE ${id} AND ${target.sql} ${d.pick(["<", ">=", "BETWEEN 'j' AND"])} '${d.pick(CHARS)}'`, cols: [{ name: "n", type: "int", deps: new Set() }] };
      default: this.use("order", [target], false);
        return { sql: `SELECT ${t.alias}.id FROM ${t.sql} ORDER BY ${target.sql} LIMIT ${1 + d.int(3)}`, cols: [{ name: "id", type: "int", deps: new Set() }] };
    }
  }

  // Fixed shapes with a known verdict (true: the contract refuses it), spelled many ways:
  // whole-row values, FROM-first syntax, qualified and quoted names, UNPIVOT, struct stars,
  // aggregate and window orderings by a blocked field, samples, EXPLAIN / DESCRIBE / SHOW.
  shapes() {
    const d = this.d;
    const S = [
      [true, "SELECT customers FROM customers LIMIT 2"], [true, "SELECT c FROM customers c LIMIT 2"],
      [true, "SELECT to_json(c) AS j FROM customers c LIMIT 2"], [true, "SELECT list(c) AS l FROM (SELECT * FROM customers LIMIT 2) c"],
      [true, "FROM customers SELECT ssn LIMIT 2"], [false, "FROM customers SELECT * EXCLUDE (ssn, email) LIMIT 2"],
      [true, "FROM customers LIMIT 2"], [true, "TABLE sales_reps"], [true, "SELECT \"SSN\" FROM CUSTOMERS LIMIT 2"],
      [true, "SELECT main.customers.ssn FROM main.customers LIMIT 2"], [true, "SELECT c.SsN AS x FROM customers AS c LIMIT 2"],
      [true, "UNPIVOT (SELECT id, ssn, email FROM customers WHERE id <= 2) ON ssn, email INTO NAME k VALUE v"],
      [false, "UNPIVOT (SELECT id, plan, segment FROM customers WHERE id <= 2) ON plan, segment INTO NAME k VALUE v"],
      [true, "SELECT s.* FROM (SELECT {'a': ssn, 'b': name} AS s FROM customers LIMIT 2)"],
      [false, "SELECT s.b FROM (SELECT {'a': id, 'b': name} AS s FROM customers LIMIT 2)"],
      [true, "SELECT unnest(s) FROM (SELECT {'a': email} AS s FROM sales_reps LIMIT 2)"],
      [true, "SELECT arg_min(name, ssn) AS n FROM customers"], [true, "SELECT arg_max(id, email) AS n FROM sales_reps"],
      [true, "SELECT string_agg(name, ',' ORDER BY ssn) AS n FROM (SELECT * FROM customers LIMIT 5)"],
      [true, "SELECT list(id ORDER BY email) AS n FROM sales_reps"], [true, "SELECT first(name ORDER BY ssn) AS n FROM customers"],
      [true, "SELECT id, row_number() OVER (ORDER BY ssn) AS r FROM customers LIMIT 5"],
      [true, "SELECT id, ntile(4) OVER (ORDER BY email) AS r FROM sales_reps"],
      [true, "SELECT id, percent_rank() OVER (ORDER BY ssn) AS r FROM customers LIMIT 5"],
      [true, "SELECT max(name) FILTER (WHERE ssn < 'm') AS n FROM customers"],
      [true, "SELECT count(*) FILTER (WHERE email LIKE 'k%') AS n FROM customers"],
      [true, "SELECT min(ssn) IS NULL AS n FROM customers"], [true, "SELECT max(length(email)) AS n FROM sales_reps"],
      [false, "SELECT name FROM customers USING SAMPLE 3 ROWS"], [true, "SELECT ssn FROM customers USING SAMPLE 3 ROWS"],
      [false, "SELECT count(*) AS n FROM customers c NATURAL JOIN sales_reps r"], [true, "SELECT * FROM customers c NATURAL JOIN sales_reps r"],
      [false, "DESCRIBE customers"], [false, "SHOW customers"], [true, "SUMMARIZE sales_reps"], [true, "EXPLAIN SELECT ssn FROM customers"],
      [true, "EXPLAIN SELECT name FROM customers WHERE ssn = 'x'"], [true, "SELECT (SELECT ssn) AS x FROM customers LIMIT 2"],
      [true, "VALUES ((SELECT ssn FROM customers LIMIT 1))"], [true, "SELECT json_group_array(ssn) AS j FROM customers"],
      [true, "SELECT min(struct_pack(s := ssn)) AS m FROM customers"], [true, "SELECT max(row(email, 1)) AS m FROM sales_reps"],
      [true, "SELECT #6 FROM customers LIMIT 2"], [true, "SELECT * FROM customers ORDER BY ALL LIMIT 1"],
      [false, "SELECT id FROM customers ORDER BY ALL LIMIT 1"], [true, "SELECT id FROM customers ORDER BY email LIMIT 1"],
      [true, "SELECT COLUMNS(c -> c LIKE '%ss%') FROM customers LIMIT 2"], [false, "SELECT COLUMNS(c -> c NOT IN ('ssn', 'email')) FROM customers LIMIT 2"],
      [true, "SELECT * REPLACE (ssn AS name) FROM customers LIMIT 2"], [true, "SELECT * RENAME (ssn AS name) FROM customers LIMIT 2"],
      [false, "SELECT * EXCLUDE (ssn, email) RENAME (name AS n) FROM customers LIMIT 2"],
      [true, "SELECT name FROM customers GROUP BY name, ssn HAVING count(*) > 0 AND min(ssn) > 'm'"],
      [false, "SELECT count(*) AS n FROM customers GROUP BY ssn HAVING count(*) > 1"],
      [true, "SELECT id FROM customers WHERE ssn = ANY(SELECT email FROM sales_reps) OR id = 1"],
      [true, "SELECT id FROM customers LIMIT (SELECT length(ssn) FROM customers LIMIT 1)"],
      [true, "SELECT id FROM customers OFFSET (SELECT ascii(email) FROM sales_reps LIMIT 1) LIMIT 1"],
      [true, "SELECT DISTINCT ON (left(ssn, 3)) id FROM customers"], [false, "SELECT DISTINCT ON (ssn) id FROM customers LIMIT 3"],
      [true, "SELECT id FROM customers GROUP BY id, left(email, 2) LIMIT 3"],
      [true, "WITH t AS (SELECT ssn FROM customers) SELECT * FROM t LIMIT 2"],
      [true, "SELECT * FROM (SELECT * FROM customers) t(a, b, c, d, e, f) LIMIT 2"],
      [true, "SELECT * FROM customers c, LATERAL (SELECT c.ssn AS s) l LIMIT 2"],
      [true, "SELECT g.x FROM customers c, generate_series(1, 2) g(x) WHERE c.id = 1 AND c.ssn > 'm'"],
      [true, "SELECT id, lead(ssn) OVER () IS NULL AS k FROM customers LIMIT 3"],
      [true, "SELECT id FROM customers WINDOW w AS (ORDER BY ssn) QUALIFY row_number() OVER w = 1"],
      [true, "SELECT id FROM customers WHERE (ssn, id) > ('m', 0)"], [true, "SELECT id FROM customers WHERE ssn COLLATE NOCASE = 'x'"],
      [true, "SELECT id FROM customers WHERE ssn::VARCHAR(4) = 'x'"], [true, "SELECT id FROM customers WHERE ssn ^@ 'k'"],
      [true, "SELECT id FROM customers WHERE ssn ~~ 'k%'"], [true, "SELECT id FROM customers WHERE ssn !~~ 'k%'"],
      [true, "SELECT id FROM customers WHERE ssn ~ '^k'"], [true, "SELECT id FROM customers WHERE ssn @> 'k'"],
      [true, "SELECT id FROM customers WHERE greatest(ssn, 'm') = 'm'"], [true, "SELECT id FROM customers WHERE nullif(ssn, 'x') IS NULL"],
      [true, "SELECT id FROM customers WHERE ifnull(ssn, 'x') = 'x'"], [true, "SELECT id FROM customers WHERE ssn IN ('a', 'b')"],
    ];
    const [dirty, sql] = d.pick(S);
    this.tag("shape");
    if (dirty) this.dirtyNow.add("shape");
    return { sql, cols: [] };
  }

  pivot() {
    const d = this.d;
    this.tag("pivot");
    const t = d.pick(["customers", "sales_reps"]);
    const on = d.pick(t === "customers" ? ["ssn", "email", "plan"] : ["email", "region"]);
    const deps = new Set([`${t}.${on}`]);
    // the ON values become column names: a blocked ON column puts its values in the header
    this.use("pivot_on", [E(on, "str", deps, { bare: `${t}.${on}` })], false);
    return { sql: `PIVOT (SELECT id, ${on} FROM ${t} WHERE id <= ${1 + d.int(5)}) ON ${on} USING count(*)`,
             cols: [{ name: "id", type: "int", deps: new Set([`${t}.id`]) }, { name: "*", type: "any", deps }] };
  }

  // Error-message channels: a conversion of a blocked value that fails at run time.
  errorChannel() {
    const d = this.d;
    this.tag("attack:error_channel");
    const t = this.table("customers");
    const c = `${t.alias}.${d.pick(["ssn", "email"])}`;
    const deps = new Set([`customers.${c.split(".")[1]}`]);
    const f = d.pick([`CAST(${c} AS INTEGER) = 0`, `${c}::DATE IS NULL`, `strptime(${c}, '%Y') IS NULL`, `json_extract(${c}, '$.a') IS NULL`,
      `from_base64(${c}) IS NULL`, `date_part(${c}, ${t.alias}.created_at) = 1`, `${c}::UUID IS NULL`, `regexp_matches(${t.alias}.name, ${c} || '(')`,
      `[1, 2][${c}::INTEGER] = 1`, `${c}::INTERVAL IS NULL`, `strftime(${t.alias}.created_at, ${c}) = ''`]);
    this.use("func", [E(c, "str", deps)], false);
    const where = d.chance(0.5) ? ` WHERE ${t.alias}.id = ${1 + d.int(40)} AND ${f}` : ` WHERE ${f}`;
    return { sql: `SELECT ${t.alias}.id FROM ${t.sql}${where}`, cols: [{ name: "id", type: "int", deps: new Set() }] };
  }

  // What code mode must never run: writes, files, the network, settings, refused functions.
  // {DIR} and {URL} are filled in by the runner (a watched directory, a listening socket).
  escape() {
    const d = this.d;
    this.tag("escape");
    this.refusedFn = true;
    return { sql: d.pick([
      "SELECT * FROM read_text('{DIR}/sentinel.txt')", "SELECT * FROM read_csv('{DIR}/sentinel.txt')", "SELECT * FROM glob('{DIR}/*')",
      "SELECT * FROM read_csv('{URL}/x.csv')", "SELECT * FROM read_parquet('{URL}/x.parquet')", "SELECT * FROM '{DIR}/sentinel.txt'",
      "COPY (SELECT name FROM customers) TO '{DIR}/out.csv'", "ATTACH '{DIR}/x.db' AS x", "INSTALL httpfs", "LOAD httpfs",
      "SET enable_external_access = true", "SELECT current_setting('threads') AS s", "SELECT * FROM query('SELECT ssn FROM customers')",
      "UPDATE customers SET name = 'x' WHERE id = 1", "DELETE FROM orders WHERE id = 1", "CREATE TABLE t AS SELECT 1 AS a",
      "INSERT INTO orders VALUES (1, 1, DATE '2026-01-01', 1, 'x')", "SELECT error('x' || name) FROM customers",
      "SELECT nextval('s')", "CALL enable_logging()", "EXPORT DATABASE '{DIR}/export'", "CHECKPOINT",
      "SELECT * FROM read_blob('{DIR}/sentinel.txt')", "SELECT * FROM read_json('{URL}/x.json')",
      "SELECT name FROM customers WHERE id IN (SELECT * FROM read_csv('{DIR}/sentinel.txt'))",
    ]), cols: [] };
  }

  // The contract's verdict on what was generated: the reasons it must be refused (empty: the
  // contract allows it).
  judge() {
    const blk = new Set(this.blocked);
    // taint closure over top-level equalities between bare columns
    for (let changed = true; changed;) {
      changed = false;
      for (const u of this.uses) {
        if (u.nested || (u.form !== "eq" && u.form !== "in_subquery") || u.ops.length !== 2) continue;
        const [a, b] = u.ops;
        if (!a.bare || !b.bare) continue;
        if (blk.has(a.bare) && !blk.has(b.bare)) { blk.add(b.bare); changed = true; }
        if (blk.has(b.bare) && !blk.has(a.bare)) { blk.add(a.bare); changed = true; }
      }
    }
    const isB = (e) => [...e.deps].some((x) => blk.has(x)) || (e.bare !== null && blk.has(e.bare));
    const dirty = new Set(this.dirtyNow);
    for (const u of this.uses) {
      if (!u.ops.some(isB)) continue;
      let ok = false;
      if (!u.nested) {
        const [a, b] = u.ops;
        if (u.form === "eq" || u.form === "in_subquery") ok = u.ops.length === 2 && ((a.bare && (b.bare || b.lit)) || (b.bare && a.lit));
        else if (u.form === "isnull" || u.form === "group") ok = Boolean(a.bare);
      }
      if (!ok) dirty.add("predicate:" + u.form);
    }
    for (const c of this.outputs) if (isB(c)) dirty.add("output");
    return { dirty: [...dirty], tainted: [...blk].filter((x) => !this.blocked.has(x)) };
  }
}

// A reversible encoding of a string x, in the engine's own functions (the canary checker
// recognises each: canary.mjs; power.mjs proves it on DuckDB): hex and base64 of it or its
// reversal, char codes one per character (list_transform / ARRAY(SELECT ...) / string_agg over
// positions), \u escapes, the characters split and joined, its digits as a number in base 16 / 2
// or shifted and scaled, a translation of its separators.
export function encodings(x, engine) {
  const digits = engine === "postgres"
    ? `nullif(regexp_replace(${x}, '[^0-9]', '', 'g'), '')::bigint`
    : `TRY_CAST(regexp_replace(${x}, '[^0-9]', '', 'g') AS BIGINT)`;
  return engine === "postgres" ? [
    `encode(convert_to(${x}, 'UTF8'), 'hex')`, `encode(convert_to(reverse(${x}), 'UTF8'), 'base64')`,
    `convert_to(${x}, 'UTF8')::text`, `array_to_string(ARRAY(SELECT ascii(ch) FROM regexp_split_to_table(${x}, '') ch), ',')`,
    `(SELECT string_agg(ascii(substr(${x}, i, 1))::text, ' ' ORDER BY i) FROM generate_series(1, 40) i)`,
    `array_to_string(ARRAY(SELECT '\\u' || lpad(to_hex(ascii(ch)), 4, '0') FROM regexp_split_to_table(${x}, '') ch), '')`,
    `array_to_string(regexp_split_to_array(reverse(${x}), ''), '|')`, `array_to_string(string_to_array(${x}, NULL), ',')`,
    `translate(${x}, '-.@', '+,#')`, `to_hex(${digits})`, `(${digits} + 123)::text`, `(${digits} * 7)::text`,
    `(regexp_match(${x}, '[0-9]+'))[1]`, `to_json(string_to_array(${x}, NULL))::text`,
  ] : [
    `hex(${x})`, `to_base64(encode(reverse(${x})))`, `array_to_string(list_transform(string_split(${x}, ''), ch -> CAST(ascii(ch) AS VARCHAR)), ',')`,
    `CAST(list_transform(string_split(${x}, ''), ch -> unicode(ch)) AS VARCHAR)`,
    `(SELECT string_agg(CAST(ord(substr(${x}, CAST(i AS INTEGER), 1)) AS VARCHAR), ' ' ORDER BY i) FROM range(1, 40) r(i))`,
    `array_to_string(list_transform(string_split(${x}, ''), ch -> printf('\\u%04x', unicode(ch))), '')`,
    `CAST(list_reverse(string_split(${x}, '')) AS VARCHAR)`, `CAST(struct_pack(c := list_transform(string_split(${x}, ''), ch -> ascii(ch))) AS VARCHAR)`,
    `to_hex(${digits})`, `bin(${digits})`, `CAST(${digits} + 123 AS VARCHAR)`, `CAST(${digits} * 7 AS VARCHAR)`,
    `array_to_string(list_transform(list_reverse(string_split(${x}, '')), ch -> lpad(to_hex(ascii(ch)), 2, '0')), '')`,
    `translate(${x}, '-.@', '+,#')`,
  ];
}

// One statement from a draw stream: {sql, vars, tags, dirty, refusedFn}; engine "postgres" mixes in
// the PostgreSQL shapes (pgShape).
// The same statement for another engine: DuckDB's generated relations and list functions
// rendered with PostgreSQL's (range -> generate_series, string_split -> string_to_array, len ->
// cardinality, a list literal [a, b] -> ARRAY[a, b]). What has no PostgreSQL form stays as it is and is refused there as a syntax or
// unknown-function error (counted apart from over-blocking).
export function toDialect(sql, engine) {
  if (engine !== "postgres") return sql;
  return sql
    .replace(/\brange\((\d+)\)/g, "generate_series(0, $1 - 1)")
    .replace(/\brange\((\d+), (\d+)\)/g, "generate_series($1, $2 - 1)")
    .replace(/\bstring_split\(/g, "string_to_array(")
    .replace(/\blen\(/g, "cardinality(")
    .replace(/(^|[\s(,=])\[/g, "$1ARRAY[");
}

export function generate(draws, blocked, engine = "duckdb") {
  const g = new Gen(draws, blocked, engine);
  const sql = g.statement();
  const { dirty } = g.judge();
  return { sql, vars: Object.keys(g.vars).length ? g.vars : null, tags: [...g.tags], dirty, refusedFn: g.refusedFn };
}
