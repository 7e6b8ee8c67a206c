SELECT [name, ssn][2] AS s FROM customers
