SELECT l.s FROM customers c, LATERAL (SELECT c.ssn AS s) l
