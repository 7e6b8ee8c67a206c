-- rule: blocked_function
-- message: function error() is not allowed
SELECT name FROM customers WHERE error(ssn) IS NULL
