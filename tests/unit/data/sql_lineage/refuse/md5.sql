SELECT md5(ssn) FROM customers
