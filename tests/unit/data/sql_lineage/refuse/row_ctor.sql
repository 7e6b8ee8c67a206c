SELECT row(name, ssn) FROM customers
