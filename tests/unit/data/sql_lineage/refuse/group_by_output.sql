SELECT ssn, count(*) FROM customers GROUP BY ssn
