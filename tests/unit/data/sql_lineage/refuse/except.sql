SELECT name FROM customers EXCEPT SELECT ssn FROM customers
