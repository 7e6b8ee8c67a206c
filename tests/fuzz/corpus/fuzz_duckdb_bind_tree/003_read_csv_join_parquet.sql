SELECT
  a.account_name,
  a.owner,
  SUM(o.total_cents) / 100.0 AS revenue
FROM read_csv_auto('accounts.csv') a
JOIN read_parquet('orders/*.parquet') o
  ON o.account_id = a.account_id
WHERE o.order_date >= DATE '2026-01-01'
GROUP BY a.account_name, a.owner
ORDER BY revenue DESC;
