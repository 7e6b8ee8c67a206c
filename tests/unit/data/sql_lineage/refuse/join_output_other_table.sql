SELECT o.id, c.ssn FROM orders o JOIN customers c ON c.id = o.customer_id
