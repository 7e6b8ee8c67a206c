SELECT list(ssn) FROM customers
