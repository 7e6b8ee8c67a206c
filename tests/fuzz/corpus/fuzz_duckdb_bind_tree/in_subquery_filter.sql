SELECT name FROM customers WHERE ssn IN (SELECT ssn FROM customers WHERE plan = 'pro')
