WITH a AS (SELECT id, ssn FROM customers), b AS (SELECT id, ssn || '!' AS t FROM a) SELECT t FROM b
