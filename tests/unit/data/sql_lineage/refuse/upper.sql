SELECT upper(ssn) FROM customers
