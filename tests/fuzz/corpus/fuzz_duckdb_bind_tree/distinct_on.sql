SELECT DISTINCT ON (ssn) name FROM customers
