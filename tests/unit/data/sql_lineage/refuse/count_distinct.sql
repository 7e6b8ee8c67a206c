SELECT count(DISTINCT ssn) AS n FROM customers
