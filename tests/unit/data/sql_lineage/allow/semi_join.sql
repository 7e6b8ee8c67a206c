SELECT name FROM customers c SEMI JOIN customers d ON c.ssn = d.ssn
