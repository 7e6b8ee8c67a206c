SELECT CASE WHEN ssn LIKE '1%' THEN 'a' ELSE 'b' END AS k FROM customers
