-- rule: blocked_predicate
SELECT name FROM customers WHERE CASE WHEN ssn LIKE '1%' THEN true ELSE false END
