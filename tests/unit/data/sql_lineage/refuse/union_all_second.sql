SELECT name FROM customers UNION ALL SELECT ssn FROM customers
