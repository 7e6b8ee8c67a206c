SELECT * EXCLUDE (ssn, email) FROM customers
