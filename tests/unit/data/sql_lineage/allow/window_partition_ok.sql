SELECT name, rank() OVER (PARTITION BY segment ORDER BY created_at) AS r FROM customers
