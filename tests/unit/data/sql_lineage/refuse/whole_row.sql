SELECT customers FROM customers
