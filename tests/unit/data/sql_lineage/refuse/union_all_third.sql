SELECT name FROM customers UNION ALL SELECT name FROM sales_reps UNION ALL SELECT ssn FROM customers
