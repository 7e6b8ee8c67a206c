-- rule: blocked_predicate
SELECT segment, count(*) AS n FROM customers GROUP BY segment HAVING count(DISTINCT ssn) > 1
