SELECT count(*) FILTER (WHERE ssn > '5') AS n FROM customers
