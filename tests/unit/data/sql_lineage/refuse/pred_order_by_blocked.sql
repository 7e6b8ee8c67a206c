-- rule: blocked_predicate
SELECT name FROM customers ORDER BY ssn LIMIT 1
