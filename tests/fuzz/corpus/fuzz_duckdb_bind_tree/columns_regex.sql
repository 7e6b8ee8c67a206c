SELECT COLUMNS('s.*') FROM customers
