SELECT name, (SELECT max(ssn) FROM customers d WHERE d.id = c.id) AS s FROM customers c
