SELECT string_agg(ssn, ',') FROM customers
