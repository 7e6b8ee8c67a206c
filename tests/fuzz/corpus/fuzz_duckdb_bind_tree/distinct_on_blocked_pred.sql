SELECT DISTINCT ON (ssn) name FROM customers ORDER BY name
