-- rule: blocked_predicate
SELECT name FROM (SELECT name, row_number() OVER (PARTITION BY ssn ORDER BY id) AS rn FROM customers) WHERE rn = 1
