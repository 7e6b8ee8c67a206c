SELECT email FROM customers
