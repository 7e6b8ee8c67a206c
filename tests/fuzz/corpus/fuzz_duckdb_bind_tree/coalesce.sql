SELECT coalesce(NULL, ssn) AS s FROM customers
