SELECT c.name, l.t FROM customers c, LATERAL (SELECT max(total_cents) AS t FROM orders o WHERE o.customer_id = c.id) l
