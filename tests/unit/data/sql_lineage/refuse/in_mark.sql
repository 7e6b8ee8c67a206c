SELECT name, ssn IN (SELECT ssn FROM customers) AS hit FROM customers
