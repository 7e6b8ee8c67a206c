const ids = ["1", "2fail", "3"];
const got = await Promise.allSettled(ids.map((id) => api.get(`/users/${id}`)));
const all = await Promise.all([api.post("/b", { id: 1 }), api.get("/x")]);
let n = 0;
for (const g of got) { if (g.status === "fulfilled") n += g.value.n; }
try { await api.get("/fail/once"); } catch (e) { n += 100; }
const pending = api.get("/never-awaited");
return { n, all: all.map((a) => a.path), m: new Map([[1, 2]]).size };
