SELECT * RENAME (ssn AS x) FROM customers
