SELECT k.email FROM contacts k JOIN customers c ON c.email = k.email
