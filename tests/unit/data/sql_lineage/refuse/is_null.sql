SELECT ssn IS NULL AS missing FROM customers
