SELECT count(*) AS n FROM customers
