SELECT ssn || '' AS s FROM customers
