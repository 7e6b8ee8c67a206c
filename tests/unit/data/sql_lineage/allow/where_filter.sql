SELECT name FROM customers WHERE ssn = '123-45-6789'
