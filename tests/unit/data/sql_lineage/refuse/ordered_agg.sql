SELECT first(name ORDER BY ssn) FROM customers
