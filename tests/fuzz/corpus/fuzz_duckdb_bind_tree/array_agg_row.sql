SELECT array_agg(c) FROM customers c
