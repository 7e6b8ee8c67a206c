SELECT list_transform([1], x -> ssn) FROM customers
