// app.js — the sluice admin console (no framework, no third-party code). Every value from the
// server is put on the page as text (textContent), never as HTML, so an audit record or a
// program's code cannot become markup; the Content-Security-Policy allows only this file.
// The administrator key is kept in sessionStorage (this tab only) and sent as a bearer header.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { key: sessionStorage.getItem("sluice-admin-key") || "",
                who: sessionStorage.getItem("sluice-admin-who") || "admin", tab: "approvals", audit: [] };

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(String(c ?? "")));
  return e;
}

function toast(text) {
  const t = $("toast");
  t.textContent = text;
  t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { t.hidden = true; }, 4000);
}

async function api(path, options = {}) {
  const headers = { Authorization: `Bearer ${state.key}`, ...(options.headers || {}) };
  const r = await fetch(path, { ...options, headers, cache: "no-store" });
  let body = null;
  try { body = await r.json(); } catch { body = null; }
  if (r.status === 401 || r.status === 429) { signOut(body?.error || "sign in again"); throw new Error("unauthorized"); }
  if (!r.ok) throw new Error(body?.error || `HTTP ${r.status}`);
  return body;
}

// ---- SQL highlighting: a small tokenizer, each token a span with text -------------------------
const KEYWORDS = new Set(("select from where and or not in is null as join left right inner outer full cross on " +
  "group by order having limit offset union all distinct case when then else end with insert into values " +
  "update set delete create drop alter table view like ilike between exists asc desc cast over partition " +
  "qualify returning true false").split(" "));

function highlight(code) {
  const pre = el("pre", { class: "code" });
  const re = /(--[^\n]*|\/\*[\s\S]*?\*\/)|('(?:[^']|'')*')|(\$[A-Za-z_][A-Za-z0-9_]*)|(\b\d+(?:\.\d+)?\b)|([A-Za-z_][A-Za-z0-9_]*)|(\s+|.)/g;
  let m;
  while ((m = re.exec(code)) !== null) {
    if (m[1]) pre.append(el("span", { class: "tok-com" }, m[1]));
    else if (m[2]) pre.append(el("span", { class: "tok-str" }, m[2]));
    else if (m[3]) pre.append(el("span", { class: "tok-var" }, m[3]));
    else if (m[4]) pre.append(el("span", { class: "tok-num" }, m[4]));
    else if (m[5] && KEYWORDS.has(m[5].toLowerCase())) pre.append(el("span", { class: "tok-kw" }, m[5]));
    else pre.append(document.createTextNode(m[0]));
  }
  return pre;
}

// ---- approvals -----------------------------------------------------------------------------------
function expiresIn(expiresAt, now) {
  const s = Math.max(0, expiresAt - now);
  return s >= 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s} s`;
}

async function decide(id, decision, card) {
  for (const b of card.querySelectorAll("button")) b.disabled = true;
  try {
    const r = await api(`/admin/approvals/${id}`, { method: "POST", headers: { "Content-Type": "application/json" },
                                                    body: JSON.stringify({ decision, as: state.who }) });
    toast(`${id.slice(0, 8)}… ${r.state} by ${r.decided_by}`);
  } catch (e) {
    toast(`not decided: ${e.message}`);
  }
  await loadApprovals();
}

// The engine's estimate, made before anything ran and signed into the approval token (execute
// refuses when the live estimate moved past estimate_drift_factor): what the approver weighs.
function estimateLine(e) {
  const rows = e.rows === null || e.rows === undefined ? "" : `~${Number(e.rows).toLocaleString()} rows · `;
  return el("p", { class: "estimate" },
    el("span", { class: "badge estimate-by" }, `${e.by} estimate`),
    ` ${rows}${Number(e.cost).toLocaleString()} ${e.unit}`);
}

function approvalCard(p, now) {
  const risk = (p.risk || "unknown").toLowerCase();
  const card = el("article", { class: "card approval", "data-id": p.id },
    el("div", { class: "top" },
      el("span", { class: `badge risk-${risk}` }, `${risk} risk`),
      el("span", { class: "badge action" }, p.action || "?"),
      el("strong", {}, p.user),
      el("span", { class: "meta" }, `asked ${p.requested_at ? new Date(p.requested_at).toLocaleString() : ""} · expires in ${expiresIn(p.expires_at, now)} · ${p.language || ""}`)),
    el("p", { class: "explanation" }, p.explanation || p.summary),
    p.estimate ? estimateLine(p.estimate) : el("p", { class: "hint estimate" }, "no estimate before running"),
    p.code ? highlight(p.code) : el("p", { class: "hint" }, "(the code is not in the recent audit trail)"),
    el("div", { class: "meta" }, `approval id ${p.id}`));
  const actions = el("div", { class: "actions" },
    el("button", { class: "approve", onclick: () => decide(p.id, "approve", card) }, "Approve"),
    el("button", { class: "reject", onclick: () => decide(p.id, "reject", card) }, "Reject"));
  card.append(actions);
  return card;
}

async function loadApprovals() {
  const data = await api("/admin/api/approvals");
  const list = $("approval-list");
  list.replaceChildren(...data.pending.map((p) => approvalCard(p, data.now)));
  $("no-approvals").hidden = data.pending.length > 0;
  $("pending-count").textContent = String(data.total);
}

// ---- saved programs --------------------------------------------------------------------------------
function paramRows(schema) {
  const props = Object.entries(schema?.properties || {});
  if (!props.length) return el("p", { class: "hint" }, "no parameters");
  const bounds = (p) => [p.minimum !== undefined ? `≥ ${p.minimum}` : "", p.maximum !== undefined ? `≤ ${p.maximum}` : "",
                         p.maxLength !== undefined ? `at most ${p.maxLength} characters` : ""].filter(Boolean).join(", ");
  return el("table", { class: "params" }, el("thead", {}, el("tr", {}, el("th", {}, "parameter"), el("th", {}, "type"), el("th", {}, "bounds"), el("th", {}, "description"))),
    el("tbody", {}, ...props.map(([name, p]) => el("tr", {}, el("td", {}, name), el("td", {}, p.type), el("td", {}, bounds(p)), el("td", {}, p.description ?? "")))));
}

async function demote(name, card) {
  for (const b of card.querySelectorAll("button, input")) b.disabled = true;
  const reason = card.querySelector("input.reason").value.trim();
  try {
    const r = await api("/admin/api/programs/demote", { method: "POST", headers: { "Content-Type": "application/json" },
                                                       body: JSON.stringify({ name, as: state.who, ...(reason ? { reason } : {}) }) });
    toast(`${r.name} demoted (version ${r.version}) by ${r.by}`);
  } catch (e) {
    toast(`not demoted: ${e.message}`);
  }
  await loadPrograms();
}

// Fills the promote form with a program's code, to promote it again (after a schema change).
function refill(p) {
  $("promote-name").value = p.name;
  $("promote-description").value = p.description || "";
  $("promote-code").value = p.code || "";
  $("promote-name").scrollIntoView({ block: "center" });
}

function programCard(p) {
  const risk = (p.risk || "unknown").toLowerCase();
  const card = el("article", { class: `card program status-${p.status}`, "data-name": p.name },
    el("div", { class: "top" },
      el("strong", { class: "name" }, p.name),
      el("span", { class: "badge version" }, `v${p.version}`),
      el("span", { class: `badge status status-${p.status}` }, p.status),
      el("span", { class: "badge action" }, p.action || "?"),
      el("span", { class: `badge risk-${risk}` }, `${risk} risk`),
      el("span", { class: "meta" }, `${p.status === "demoted" ? "demoted" : "promoted"} by ${p.by} · ${new Date(p.at * 1000).toLocaleString()} · ${p.language || ""}`)),
    p.description ? el("p", { class: "description" }, p.description) : "",
    p.reason ? el("p", { class: "reason error" }, p.reason) : "",
    p.estimate ? estimateLine(p.estimate) : el("p", { class: "hint estimate" }, "no estimate recorded with this version"),
    p.code ? highlight(p.code) : "",
    p.input_schema ? paramRows(p.input_schema) : "");
  const actions = el("div", { class: "actions" });
  if (p.status === "runs")
    actions.append(el("input", { class: "reason", type: "text", maxlength: "4096", placeholder: "reason (shown to callers)" }),
                   el("button", { class: "demote reject", onclick: () => demote(p.name, card) }, "Demote"));
  else if (p.code)
    actions.append(el("button", { class: "repromote", onclick: () => refill(p) }, "Promote again…"));
  card.append(actions);
  return card;
}

async function loadPrograms() {
  const data = await api("/admin/api/programs");
  $("programs-file").textContent = data.enabled ? `Store: ${data.file}.` : "Saved programs are off: set [code_mode] programs_file or [state] programs_postgres.";
  $("program-list").replaceChildren(...data.programs.map(programCard));
  $("no-programs").hidden = data.programs.length > 0 || !data.enabled;
  $("promote-form").hidden = !data.enabled;
}

async function promote(event) {
  event.preventDefault();
  $("promote-error").textContent = "";
  let variables;
  try { variables = JSON.parse($("promote-variables").value || "{}"); } catch (e) {
    $("promote-error").textContent = `Example variables are not JSON: ${e.message}`;
    return;
  }
  const groups = $("promote-groups").value.split(",").map((g) => g.trim()).filter(Boolean);
  const description = $("promote-description").value.trim();
  const body = { name: $("promote-name").value.trim(), code: $("promote-code").value, variables, groups, as: state.who,
                 ...(description ? { description } : {}) };
  $("promote-run").disabled = true;
  try {
    const r = await api("/admin/api/programs/promote", { method: "POST", headers: { "Content-Type": "application/json" },
                                                        body: JSON.stringify(body) });
    toast(`${r.name} promoted (version ${r.version})`);
    $("promote-form").reset();
  } catch (e) {
    $("promote-error").textContent = e.message;
  } finally {
    $("promote-run").disabled = false;
  }
  await loadPrograms();
}

// ---- audit trail ----------------------------------------------------------------------------------
function what(r) {
  if (r.code) return r.code.replace(/\s+/g, " ");
  if (r.message) return r.message;
  if (r.summary) return r.summary;
  if (r.approval_id) return `approval ${r.approval_id}`;
  return Object.entries(r).filter(([k]) => !["seq", "ts", "prev", "event", "decision", "user", "auth", "session", "server", "groups", "request_id", "chain"].includes(k))
    .map(([k, v]) => `${k}=${typeof v === "object" ? JSON.stringify(v) : v}`).join(" ");
}

function renderAudit() {
  const q = $("audit-search").value.trim().toLowerCase();
  const ev = $("audit-event").value;
  const rows = state.audit.filter((r) => (!ev || r.event === ev) && (!q || JSON.stringify(r).toLowerCase().includes(q)));
  $("audit-table").tBodies[0].replaceChildren(...rows.map((r) => el("tr", {},
    // a writer chain other than the main file has its own seq: "w2:5"
    el("td", {}, r.chain && r.chain !== "main" ? `${r.chain}:${r.seq}` : r.seq), el("td", {}, new Date(r.ts).toLocaleString()), el("td", {}, r.event),
    el("td", { class: `d-${r.decision}` }, r.decision ?? ""), el("td", {}, r.user ?? ""),
    el("td", { class: "what" }, r.request_id ?? ""), el("td", { class: "what", title: what(r) }, what(r)))));
}

async function loadAudit() {
  const data = await api("/admin/api/audit?limit=200");
  state.audit = data.records;
  const events = [...new Set(data.records.map((r) => r.event))].sort();
  const sel = $("audit-event");
  const keep = sel.value;
  sel.replaceChildren(el("option", { value: "" }, "every event"), ...events.map((e) => el("option", { value: e }, e)));
  sel.value = events.includes(keep) ? keep : "";
  $("audit-file").textContent = data.enabled ? `The last ${data.records.length} records of ${data.file}, newest first. \`sluice audit verify\` checks the whole chain.` : "No audit log is configured.";
  renderAudit();
}

// audit export: the filtered records as a file; fetched with the bearer key, saved from a blob
async function exportAudit(format) {
  const params = new URLSearchParams({ format, q: $("audit-search").value.trim(), event: $("audit-event").value, as: state.who });
  const r = await fetch(`/admin/api/audit/export?${params}`, { headers: { Authorization: `Bearer ${state.key}` }, cache: "no-store" });
  if (!r.ok) { toast(`export failed: HTTP ${r.status}`); return; }
  const url = URL.createObjectURL(await r.blob());
  const a = el("a", { href: url, download: `sluice-audit.${format}` });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
  toast(`exported ${format.toUpperCase()}`);
}

// ---- policies and the evaluator ---------------------------------------------------------------
async function loadPolicies() {
  const p = await api("/admin/api/policies");
  $("policy-meta").textContent = `backend: ${p.backend} · version ${p.version.slice(0, 12)}… · default route: ${p.default_route.id}` +
    (p.file ? ` · ${p.file}` : "");
  $("policy-text").textContent = p.text ?? (p.text_error || "No Cedar policy file: the configuration rules alone decide.");
  const overrides = (r) => [r.allow_writes !== undefined ? `writes ${r.allow_writes ? "on" : "off"}` : "",
    r.allow_deletes !== undefined ? `deletes ${r.allow_deletes ? "on" : "off"}` : "", r.max_rows ? `max_rows ${r.max_rows}` : "",
    r.allowed_operations.length ? `operations: ${r.allowed_operations.join(", ")}` : ""].filter(Boolean).join("; ");
  $("route-map").tBodies[0].replaceChildren(...p.routes.map((r) => el("tr", {},
    el("td", {}, r.id), el("td", {}, r.groups.join(", ")), el("td", {}, r.database ?? "[database]"), el("td", {}, overrides(r)))),
    el("tr", { class: "default" }, el("td", {}, p.default_route.id), el("td", {}, "everyone else"), el("td", {}, "[database]"), el("td", {}, "")));
}

async function evaluate(event) {
  event.preventDefault();
  const params = new URLSearchParams({ user: $("eval-user").value.trim(), groups: $("eval-groups").value.trim(),
                                       code: $("eval-code").value, as: state.who });
  let d;
  try { d = await api(`/admin/api/evaluate?${params}`); } catch (e) { toast(e.message); return; }
  $("eval-result").hidden = false;
  $("eval-decision").textContent = d.decision;
  $("eval-decision").className = `badge decision-${d.decision}`;
  $("eval-verdict").textContent = d.verdict;
  $("eval-route").textContent = `route ${d.route}${d.route_is_default ? " (default)" : ""} · backend ${d.backend} · action ${d.code_facts?.action ?? "?"}`;
  $("eval-policies").replaceChildren(...(d.determining_policies.length ? d.determining_policies.map((r) =>
    el("li", {}, el("strong", {}, `${r.effect} ${r.annotation ?? r.id}`), ` (lines ${r.first_line}-${r.last_line})`))
    : [el("li", {}, d.decision === "allow" ? "none" : "none: no permit matched (default deny)")]),
    ...d.errors.map((e) => el("li", { class: "error" }, e)));
  $("eval-rules").replaceChildren(...(d.rule_violations.length ? d.rule_violations.map((v) => el("li", {}, v)) : [el("li", {}, "no violation")]));
  $("eval-facts").textContent = JSON.stringify(d.facts, null, 2);
}

// ---- metrics --------------------------------------------------------------------------------------
function parseMetrics(text) {
  const out = [];
  for (const line of text.split("\n")) {
    const m = line.match(/^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/);
    if (!m) continue;
    const labels = {};
    for (const l of (m[2] || "").matchAll(/([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2];
    out.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return out;
}

const total = (ms, name, where = {}) => ms.filter((s) => s.name === name && Object.entries(where).every(([k, v]) => s.labels[k] === v))
  .reduce((a, s) => a + s.value, 0);

function quantile(ms, name, q) {
  const buckets = ms.filter((s) => s.name === `${name}_bucket`);
  const byLe = new Map();
  for (const b of buckets) byLe.set(b.labels.le, (byLe.get(b.labels.le) || 0) + b.value);
  const les = [...byLe.keys()].sort((a, b) => Number(a) - Number(b));
  const count = byLe.get("+Inf") || 0;
  if (count === 0) return "–";
  for (const le of les) if (byLe.get(le) >= q * count) return le === "+Inf" ? "> 30 s" : `≤ ${Number(le) * 1000} ms`;
  return "–";
}

async function loadMetrics() {
  const r = await fetch("/metrics", { cache: "no-store" });
  const ms = parseMetrics(await r.text());
  const tiles = [
    ["MCP requests", total(ms, "sluice_requests_total")],
    ["executions run", total(ms, "sluice_requests_total", { tool: "execute_code", status: "ok" })],
    ["denials", total(ms, "sluice_denials_total")],
    ["approvals asked", total(ms, "sluice_approvals_total", { outcome: "requested" })],
    ["approved", total(ms, "sluice_approvals_total", { outcome: "approved" })],
    ["rejected", total(ms, "sluice_approvals_total", { outcome: "rejected" })],
    ["token refusals", total(ms, "sluice_token_refusals_total")],
    ["engine errors", total(ms, "sluice_engine_errors_total")],
    ["validate p95", quantile(ms, "sluice_validate_duration_seconds", 0.95)],
    ["execute p95", quantile(ms, "sluice_execute_duration_seconds", 0.95)],
    ["audit records", total(ms, "sluice_audit_records_total")],
    ["query-mode sessions", total(ms, "sluice_querymode_sessions_open")],
  ];
  $("tiles").replaceChildren(...tiles.map(([k, v]) => el("div", { class: "tile" }, el("div", { class: "v" }, v), el("div", { class: "k" }, k))));
  const rows = (name, label) => {
    const m = new Map();
    for (const s of ms.filter((x) => x.name === name)) m.set(s.labels[label], (m.get(s.labels[label]) || 0) + s.value);
    return [...m.entries()].sort((a, b) => b[1] - a[1]).map(([k, v]) => el("tr", {}, el("td", {}, k || "(none)"), el("td", {}, v)));
  };
  $("denials").tBodies[0].replaceChildren(...rows("sluice_denials_total", "reason"));
  $("by-tool").tBodies[0].replaceChildren(...rows("sluice_requests_total", "tool"));
}

// ---- quotas ---------------------------------------------------------------------------------------
async function loadQuotas() {
  const r = await api("/admin/api/quotas");
  const rows = (r.usage || []).slice().sort((a, b) => a.principal.localeCompare(b.principal) ||
                                                      a.route.localeCompare(b.route) || a.quota.localeCompare(b.quota));
  $("quota-table").tBodies[0].replaceChildren(...rows.map((u) => {
    const full = u.limit !== undefined && u.used >= u.limit;
    return el("tr", full ? { class: "over" } : {}, el("td", {}, u.principal), el("td", {}, u.route), el("td", {}, u.quota),
              el("td", {}, u.used), el("td", {}, u.limit ?? "none"), el("td", {}, u.resets_at));
  }));
  $("no-quotas").hidden = rows.length > 0;
}

// ---- configuration --------------------------------------------------------------------------------
function dl(obj) {
  const d = el("dl");
  for (const [k, v] of Object.entries(obj)) {
    d.append(el("dt", {}, k), el("dd", {}, v === null || v === undefined ? "—" : Array.isArray(v) ? (v.length ? v.map((x) => typeof x === "object" ? JSON.stringify(x) : x).join(", ") : "[]") : String(v)));
  }
  return d;
}

async function loadConfig() {
  const s = await api("/admin/api/summary");
  $("config-body").replaceChildren(
    el("div", { class: "card" }, el("h3", {}, "Policy"), dl(s.policy)),
    el("div", { class: "card" }, el("h3", {}, "Code mode"), dl(s.code_mode)),
    el("div", { class: "card" }, el("h3", {}, "Database"), dl(s.database)),
    el("div", { class: "card" }, el("h3", {}, "Server"), dl(s.server)));
}

// ---- navigation -------------------------------------------------------------------------------------
const loaders = { approvals: loadApprovals, programs: loadPrograms, audit: loadAudit, policies: loadPolicies, metrics: loadMetrics, quotas: loadQuotas, config: loadConfig };

async function show(tab) {
  state.tab = tab;
  for (const b of document.querySelectorAll("nav button[data-tab]")) b.classList.toggle("active", b.dataset.tab === tab);
  for (const s of document.querySelectorAll("section.tab")) s.hidden = s.id !== tab;
  try { await loaders[tab](); } catch (e) { if (e.message !== "unauthorized") toast(e.message); }
}

function signOut(message) {
  sessionStorage.removeItem("sluice-admin-key");
  state.key = "";
  $("tabs").hidden = true;
  for (const s of document.querySelectorAll("section.tab")) s.hidden = true;
  $("signin").hidden = false;
  $("signin-error").textContent = message || "";
}

async function signIn(event) {
  event?.preventDefault();
  if (event) {
    state.key = $("key").value;
    state.who = $("who").value.trim() || "admin";
  }
  try {
    await api("/admin/api/summary");
  } catch (e) {
    $("signin-error").textContent = e.message === "unauthorized" ? "That is not the administrator key." : e.message;
    return;
  }
  sessionStorage.setItem("sluice-admin-key", state.key);
  sessionStorage.setItem("sluice-admin-who", state.who);
  $("signin").hidden = true;
  $("tabs").hidden = false;
  await show(state.tab);
}

document.addEventListener("DOMContentLoaded", () => {
  $("signin-form").addEventListener("submit", signIn);
  for (const b of document.querySelectorAll("nav button[data-tab]")) b.addEventListener("click", () => show(b.dataset.tab));
  $("sign-out").addEventListener("click", () => signOut("Signed out."));
  $("audit-search").addEventListener("input", renderAudit);
  $("audit-event").addEventListener("change", renderAudit);
  $("audit-refresh").addEventListener("click", loadAudit);
  $("audit-export-jsonl").addEventListener("click", () => exportAudit("jsonl"));
  $("audit-export-csv").addEventListener("click", () => exportAudit("csv"));
  $("eval-form").addEventListener("submit", evaluate);
  $("promote-form").addEventListener("submit", promote);
  $("who").value = state.who;
  if (state.key) signIn();
  setInterval(() => { if (state.key && (state.tab === "approvals" || state.tab === "metrics")) show(state.tab); }, 3000);
});
