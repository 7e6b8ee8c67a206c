SELECT DISTINCT ON (ssn) name, id FROM customers WHERE ssn IS NOT NULL
