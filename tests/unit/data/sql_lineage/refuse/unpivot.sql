UNPIVOT (SELECT name, ssn FROM customers) ON name, ssn INTO NAME k VALUE v
