-- message: which the statement compares with blocked field customers.email
SELECT k.email FROM contacts k JOIN customers c ON c.email = k.email
