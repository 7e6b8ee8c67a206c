SELECT lower(email) AS e FROM customers
