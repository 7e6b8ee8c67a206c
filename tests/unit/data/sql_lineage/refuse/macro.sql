SELECT leak(ssn) FROM customers
