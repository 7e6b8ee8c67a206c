SELECT struct_pack(x := ssn) FROM customers
