SELECT ssn FROM customers ORDER BY id LIMIT 1
