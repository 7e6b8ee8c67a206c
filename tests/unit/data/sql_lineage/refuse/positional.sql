SELECT #6 FROM customers
