SELECT COLUMNS(* EXCLUDE (ssn, email)) FROM customers
