SELECT c.name, o.total_cents FROM customers c JOIN customers d ON c.ssn = d.ssn JOIN orders o ON o.customer_id = c.id
