SELECT * EXCLUDE (email) REPLACE (name AS ssn) FROM customers
