SELECT name FROM customers INTERSECT SELECT ssn FROM customers
