WITH current_revenue AS (
  SELECT
    customer_id,
    SUM(total_cents) AS current_total_cents
  FROM orders
  WHERE order_date >= DATE '2026-04-01'
    AND order_date <  DATE '2026-07-01'
  GROUP BY customer_id
),
previous_revenue AS (
  SELECT
    customer_id,
    SUM(total_cents) AS previous_total_cents
  FROM orders
  WHERE order_date >= DATE '2026-01-01'
    AND order_date <  DATE '2026-04-01'
  GROUP BY customer_id
),
ticket_counts AS (
  SELECT
    customer_id,
    COUNT(*) AS ticket_count
  FROM support_tickets
  WHERE created_at >= TIMESTAMP '2026-04-01 00:00:00'
    AND created_at <  TIMESTAMP '2026-07-01 00:00:00'
  GROUP BY customer_id
)
SELECT
  c.id,
  c.name,
  current_revenue.current_total_cents,
  previous_revenue.previous_total_cents,
  ticket_counts.ticket_count
FROM customers c
JOIN current_revenue ON current_revenue.customer_id = c.id
JOIN previous_revenue ON previous_revenue.customer_id = c.id
JOIN ticket_counts ON ticket_counts.customer_id = c.id
WHERE c.plan = 'enterprise'
  AND current_revenue.current_total_cents < previous_revenue.previous_total_cents
  AND ticket_counts.ticket_count > 3
ORDER BY
  previous_revenue.previous_total_cents - current_revenue.current_total_cents DESC
LIMIT 20;

