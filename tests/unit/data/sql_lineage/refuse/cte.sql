WITH x AS (SELECT ssn AS s FROM customers) SELECT s FROM x
