SELECT unnest([name, ssn]) FROM customers
