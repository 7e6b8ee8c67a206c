SELECT c.* FROM customers c
