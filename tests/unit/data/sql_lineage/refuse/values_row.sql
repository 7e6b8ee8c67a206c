SELECT v FROM customers c, (VALUES (c.ssn)) t(v)
