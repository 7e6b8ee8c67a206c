-- rule: blocked_function
-- message: table function enable_logging() is not allowed
SELECT * FROM enable_logging(storage = 'file', storage_path = '/tmp/x')
