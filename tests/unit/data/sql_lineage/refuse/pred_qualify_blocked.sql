-- rule: blocked_predicate
SELECT name FROM customers QUALIFY row_number() OVER (ORDER BY ssn) = 1
