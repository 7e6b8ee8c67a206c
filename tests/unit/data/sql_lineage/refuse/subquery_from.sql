SELECT s FROM (SELECT ssn AS s FROM customers)
