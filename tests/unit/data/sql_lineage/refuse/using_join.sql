SELECT ssn FROM customers c JOIN customers d USING (ssn)
