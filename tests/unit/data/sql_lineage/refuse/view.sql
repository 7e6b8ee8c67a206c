SELECT * FROM customer_directory
