SELECT any_value(ssn) FROM customers
