SELECT row_number() OVER (PARTITION BY ssn) AS r FROM customers
