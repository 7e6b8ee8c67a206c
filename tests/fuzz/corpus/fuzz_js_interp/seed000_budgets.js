const budgets = await api.post("/budgets/listForecasts", {
  month: args.month
});

const top = budgets.items
  .filter(b => b.forecast > b.limit)
  .sort((a, b) => (b.forecast - b.limit) - (a.forecast - a.limit))
  .slice(0, 10);

const owners = await Promise.all(
  top.map(item => api.get(`/users/${item.ownerId}`))
);

return top.map((item, i) => ({
  budget: item.name,
  owner: owners[i].name,
  team: owners[i].team,
  amount: item.limit,
  forecast_delta: item.forecast - item.limit
}));
