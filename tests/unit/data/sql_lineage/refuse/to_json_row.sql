SELECT to_json(c) FROM customers c
