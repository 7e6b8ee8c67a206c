SELECT name FROM customers c WHERE EXISTS (SELECT 1 FROM contacts k WHERE k.customer_id = c.id AND k.email = c.email)
