SELECT * FROM orders o FULL OUTER JOIN customers c ON o.customer_id = c.id
