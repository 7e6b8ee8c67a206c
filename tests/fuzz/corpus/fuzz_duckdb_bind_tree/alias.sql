SELECT ssn AS x FROM customers
