SELECT name FROM customers UNION SELECT ssn FROM customers
