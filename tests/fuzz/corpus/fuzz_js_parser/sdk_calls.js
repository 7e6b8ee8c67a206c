const u = await api.getUser({ id: args.id, fields: "name" });
const f = await api.getFile({ path: "docs/a.md" });
await api.setNote({ id: "b3", body: { note: u.name } });
const g = api.getUser;
const h = await api["getUser"]({ id: "1" });
await api.listed_but_absent({});
await api.getUsr({ id: "x" }, 2);
return { name: u.name, size: f.size };
