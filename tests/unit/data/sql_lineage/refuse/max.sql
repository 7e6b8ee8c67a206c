SELECT max(ssn) FROM customers
