SELECT ssn FROM customers
