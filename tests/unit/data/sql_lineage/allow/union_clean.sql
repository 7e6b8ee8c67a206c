SELECT name FROM customers UNION SELECT name FROM sales_reps
