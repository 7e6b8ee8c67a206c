SELECT name, (SELECT max(total_cents) FROM orders o WHERE o.customer_id = c.id) AS biggest FROM customers c
