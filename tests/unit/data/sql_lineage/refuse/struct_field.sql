SELECT {'a': ssn}.a AS s FROM customers
