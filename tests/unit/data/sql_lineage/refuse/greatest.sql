SELECT greatest(name, ssn) FROM customers
