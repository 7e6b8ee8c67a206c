SELECT length(ssn) AS n FROM customers
