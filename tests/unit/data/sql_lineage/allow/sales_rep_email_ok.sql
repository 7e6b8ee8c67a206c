SELECT name FROM sales_reps WHERE email LIKE '%@example.com'
