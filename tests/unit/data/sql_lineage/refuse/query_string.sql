-- rule: blocked_function
-- message: table function query() is not allowed
SELECT * FROM query('SELECT ssn FROM customers')
