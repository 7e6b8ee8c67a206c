WITH monthly AS (
  SELECT
    account_id,
    date_trunc('month', order_date) AS month,
    SUM(total_cents) AS revenue_cents
  FROM read_parquet('orders/*.parquet')
  GROUP BY account_id, month
),
with_previous AS (
  SELECT
    account_id,
    month,
    revenue_cents,
    lag(revenue_cents) OVER (
      PARTITION BY account_id
      ORDER BY month
    ) AS previous_revenue_cents
  FROM monthly
)
SELECT
  account_id,
  month,
  revenue_cents,
  previous_revenue_cents,
  revenue_cents - previous_revenue_cents AS delta_cents
FROM with_previous
WHERE previous_revenue_cents IS NOT NULL
ORDER BY delta_cents ASC
LIMIT 20;
