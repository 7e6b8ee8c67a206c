SELECT json_object('s', ssn) FROM customers
