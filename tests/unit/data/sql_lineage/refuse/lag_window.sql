SELECT lag(ssn) OVER (ORDER BY id) AS prev FROM customers
