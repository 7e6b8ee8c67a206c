SELECT count(*) AS n FROM customers GROUP BY ssn
