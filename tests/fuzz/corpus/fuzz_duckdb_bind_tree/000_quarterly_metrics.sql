SELECT *
FROM (
    SELECT
        rep_id,
        customer_id,
        quarterly_revenue,
        LAG(quarterly_revenue) OVER (
            PARTITION BY customer_id
            ORDER BY quarter
        ) AS previous_quarter_revenue,
        ticket_count,
        quarter
    FROM account_quarterly_metrics
)
WHERE quarter = '2026-Q1'
  AND previous_quarter_revenue IS NOT NULL
  AND ticket_count > 3
ORDER BY
    (quarterly_revenue - previous_quarter_revenue) ASC
LIMIT 5;
