SELECT name, plan FROM customers UNION ALL SELECT name, region FROM sales_reps UNION ALL SELECT name, plan FROM customers ORDER BY name
