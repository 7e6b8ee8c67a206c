SELECT substring(ssn, 1, 3) AS area FROM customers
