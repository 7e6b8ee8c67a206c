WITH x AS (SELECT * FROM customers) SELECT * EXCLUDE (ssn, email) FROM x
