SELECT name FROM customers c ANTI JOIN contacts k ON k.email = c.email
