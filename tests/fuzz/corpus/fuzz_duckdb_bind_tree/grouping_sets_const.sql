SELECT 'x' AS k FROM customers GROUP BY GROUPING SETS ((ssn), (name))
