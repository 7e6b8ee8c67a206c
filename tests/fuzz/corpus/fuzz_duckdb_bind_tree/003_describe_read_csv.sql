DESCRIBE SELECT *
FROM read_csv_auto('customers.csv');
