WITH current_revenue AS (
  SELECT customer_id, SUM(total_cents) AS current_total_cents
  FROM orders
  WHERE order_date >= DATE '2026-04-01' AND order_date <  DATE '2026-07-01'
  GROUP BY customer_id
),
previous_revenue AS (
  SELECT customer_id, SUM(total_cents) AS previous_total_cents
  FROM orders
  WHERE order_date >= DATE '2026-01-01' AND order_date <  DATE '2026-04-01'
  GROUP BY customer_id
),
ticket_counts AS (
  SELECT customer_id, COUNT(*) AS ticket_count
  FROM support_tickets
  WHERE created_at >= TIMESTAMP '2026-04-01 00:00:00'
    AND created_at <  TIMESTAMP '2026-07-01 00:00:00'
  GROUP BY customer_id
)
SELECT c.id, c.name, current_revenue.current_total_cents,
  previous_revenue.previous_total_cents, ticket_counts.ticket_count
FROM customers c
JOIN current_revenue ON current_revenue.customer_id = c.id
JOIN previous_revenue ON previous_revenue.customer_id = c.id
JOIN ticket_counts ON ticket_counts.customer_id = c.id
WHERE c.plan = 'enterprise'
  AND current_revenue.current_total_cents < previous_revenue.previous_total_cents
  AND ticket_counts.ticket_count > 3
ORDER BY previous_revenue.previous_total_cents - current_revenue.current_total_cents DESC
LIMIT 20;
;;
SELECT id, customer_id, order_date, total_cents, status FROM orders ORDER BY id LIMIT 1000
;;
SELECT count(*) AS n FROM reps WHERE name <> ''
;;
INSERT INTO reps (id, name) SELECT id, name FROM reps WHERE id > 0
;;
CREATE TABLE reps(id INTEGER, name VARCHAR);INSERT INTO reps SELECT i, 'rep ' || i FROM range(1, 41) t(i);
;;
SELECT i FROM range(5000) t(i)
;;
call validate_code again
;;
SELECT upper(name) AS n, length(trim(plan)) AS l FROM customers
;;
SELECT status, count(*) AS n, avg(total_cents) AS a FROM orders GROUP BY status
;;
SELECT id, lag(total_cents) OVER (ORDER BY id) AS prev FROM orders
;;
SELECT id FROM orders WHERE order_date >= DATE '2026-01-01' AND status IN ('paid', 'open')
;;
SELECT lpad(name, 5, ' ') AS p FROM customers
;;
SELECT name || 'x' AS p FROM customers
;;
SELECT range AS r FROM range(3)
;;
SELECT [id] AS l FROM customers
;;
SELECT CAST(id AS INTEGER[]) AS l FROM customers
;;
SELECT list_transform([1], x -> x + 1) AS l
;;
SELECT leak(name) AS n FROM customers
;;
SELECT sum(total_cents) OVER () AS s FROM orders
;;
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 3) SELECT n FROM t
;;
SELECT upper('
;;
SELECT name FROM customers
;;
SELECT
;;
FROM orders SELECT id
;;
VALUES (1)
;;
INSERT INTO orders(id) VALUES (1)
;;
INSERT
;;
UPDATE orders SET status = 'x' WHERE id = 1
;;
UPDATE
;;
MERGE INTO orders USING orders o2 ON orders.id = o2.id WHEN MATCHED THEN UPDATE SET status = 'x'
;;
MERGE
;;
DELETE FROM orders WHERE id = 1
;;
DELETE
;;
CREATE TABLE t(a INTEGER)
;;
CREATE
;;
DROP TABLE orders
;;
DROP
;;
ALTER TABLE orders ADD COLUMN x INTEGER
;;
ALTER
;;
ATTACH ':memory:' AS m
;;
ATTACH
;;
PRAGMA enable_profiling
;;
PRAGMA
;;
SET threads = 4
;;
SET
;;
SET VARIABLE v = 1
;;
COPY orders TO '/tmp/x.csv'
;;
COPY
;;
CALL enable_logging()
;;
CALL
;;
EXPLAIN SELECT 1
;;
EXPLAIN
;;
SUMMARIZE customers
;;
DESCRIBE customers
;;
DESCRIBE (SELECT name FROM customers)
;;
SHOW TABLES
;;
PRAGMA table_info('customers')
;;
CREATE TABLE t2(a INTEGER)
;;
ATTACH ':memory:' AS m2
;;
SELECT 1;
-- harmless?
DELETE FROM orders
;;
SELECT ';' AS a /* ; */ -- ;
;
;;
SELECT 1,
  2 FRM customers WHERE
;;
SELECT 'abc
;;
SELECT name FROM customers WHERE plan = 'pro' LIMIT 5
;;
select   name
  from customers -- who
 where plan='pro' /* cap */ limit 5;
;;
SeLeCt name FROM customers WHERE plan = 'pro' LiMiT 5
;;
SELECT name FROM customers WHERE plan = 'Pro' LIMIT 5
;;
SELECT name FROM customers WHERE plan = 'pro' LIMIT 6
;;
DELETE  FROM orders -- x
 WHERE id = 1;
;;
DELETE FROM orders WHERE id = 2
;;
SELECT id FROM orders LIMIT 2
;;
SELECT len(range(1000)) AS n
;;
table function read_csv_auto() is not allowed: it reads files
;;
table function read_parquet() is not allowed: it reads files
;;
SELECT c.name FROM customers c JOIN customers d ON c.ssn = d.ssn LIMIT 3
;;
SELECT name
FROM customer
;;
Table with name customer does not exist. Did you mean "customers"?
;;
SELECT name
  FROM customers
 WHERE plann = 'enterprise'
;;
SELECT sumx(id) FROM customers
;;
SELECT sum(name) FROM customers
;;
SELECT * FROM customer
;;
SELECT 1
;;
SELECT * FROM arrow_scan()
;;
table function arrow_scan() is not allowed: it reads memory by address
;;
SELECT * FROM arrow_scan_dumb()
;;
table function arrow_scan_dumb() is not allowed: it reads memory by address
;;
SELECT * FROM check_peg_parser()
;;
table function check_peg_parser() is not allowed: it changes server state
;;
SELECT * FROM checkpoint()
;;
table function checkpoint() is not allowed: it changes server state
;;
SELECT * FROM disable_logging()
;;
table function disable_logging() is not allowed: it changes server state
;;
SELECT * FROM disable_peg_parser()
;;
table function disable_peg_parser() is not allowed: it changes server state
;;
SELECT * FROM disable_profiling()
;;
table function disable_profiling() is not allowed: it changes server state
;;
SELECT * FROM enable_logging(storage='stdout')
;;
table function enable_logging() is not allowed: it changes server state
;;
SELECT * FROM enable_peg_parser()
;;
table function enable_peg_parser() is not allowed: it changes server state
;;
SELECT * FROM enable_profiling()
;;
table function enable_profiling() is not allowed: it changes server state
;;
SELECT * FROM force_checkpoint()
;;
table function force_checkpoint() is not allowed: it changes server state
;;
SELECT * FROM glob('/etc/*')
;;
table function glob() is not allowed: it reads files
;;
SELECT * FROM icu_calendar_names()
;;
table function icu_calendar_names() is not allowed: it reports server internals or settings
;;
SELECT * FROM json_execute_serialized_sql()
;;
table function json_execute_serialized_sql() is not allowed: it runs SQL given as a string
;;
SELECT * FROM parquet_bloom_probe()
;;
table function parquet_bloom_probe() is not allowed: it reads files
;;
SELECT * FROM parquet_file_metadata()
;;
table function parquet_file_metadata() is not allowed: it reads files
;;
SELECT * FROM parquet_full_metadata()
;;
table function parquet_full_metadata() is not allowed: it reads files
;;
SELECT * FROM parquet_kv_metadata()
;;
table function parquet_kv_metadata() is not allowed: it reads files
;;
SELECT * FROM parquet_metadata()
;;
table function parquet_metadata() is not allowed: it reads files
;;
SELECT * FROM parquet_scan()
;;
table function parquet_scan() is not allowed: it reads files
;;
SELECT * FROM parquet_schema()
;;
table function parquet_schema() is not allowed: it reads files
;;
SELECT * FROM pg_timezone_names()
;;
table function pg_timezone_names() is not allowed: it reports server internals or settings
;;
SELECT * FROM query('SELECT ssn FROM customers')
;;
table function query() is not allowed: it runs SQL given as a string
;;
SELECT * FROM query_table('customers')
;;
table function query_table() is not allowed: it runs SQL given as a string
;;
SELECT * FROM read_blob()
;;
table function read_blob() is not allowed: it reads files
;;
SELECT * FROM read_csv('/etc/passwd')
;;
table function read_csv() is not allowed: it reads files
;;
SELECT * FROM read_csv_auto()
;;
SELECT * FROM read_duckdb()
;;
table function read_duckdb() is not allowed: it reads files
;;
SELECT * FROM read_json()
;;
table function read_json() is not allowed: it reads files
;;
SELECT * FROM read_json_auto()
;;
table function read_json_auto() is not allowed: it reads files
;;
SELECT * FROM read_json_objects()
;;
table function read_json_objects() is not allowed: it reads files
;;
SELECT * FROM read_json_objects_auto()
;;
table function read_json_objects_auto() is not allowed: it reads files
;;
SELECT * FROM read_ndjson()
;;
table function read_ndjson() is not allowed: it reads files
;;
SELECT * FROM read_ndjson_auto()
;;
table function read_ndjson_auto() is not allowed: it reads files
;;
SELECT * FROM read_ndjson_objects()
;;
table function read_ndjson_objects() is not allowed: it reads files
;;
SELECT * FROM read_ndjson_objects_auto()
;;
table function read_ndjson_objects_auto() is not allowed: it reads files
;;
SELECT * FROM read_parquet('orders/*.parquet')
;;
SELECT * FROM read_text()
;;
table function read_text() is not allowed: it reads files
;;
SELECT * FROM sniff_csv()
;;
table function sniff_csv() is not allowed: it reads files
;;
SELECT * FROM sql_auto_complete()
;;
table function sql_auto_complete() is not allowed: it reports server internals or settings
;;
SELECT * FROM summary()
;;
table function summary() is not allowed: it returns every column of its input, including blocked ones
;;
SELECT * FROM truncate_duckdb_logs()
;;
table function truncate_duckdb_logs() is not allowed: it changes server state
;;
SELECT * FROM which_secret()
;;
table function which_secret() is not allowed: it reports server internals or settings
;;
SELECT * FROM duckdb_tables()
;;
table function duckdb_tables() is not allowed: it reports server internals or settings
;;
SELECT * FROM duckdb_settings()
;;
table function duckdb_settings() is not allowed: it reports server internals or settings
;;
SELECT * FROM duckdb_secrets()
;;
table function duckdb_secrets() is not allowed: it reports server internals or settings
;;
SELECT * FROM pragma_table_info()
;;
table function pragma_table_info() is not allowed: it reports server internals or settings
;;
SELECT * FROM json_each()
;;
table function json_each() is not allowed: it is not on the table function allowlist
;;
SELECT * FROM test_all_types()
;;
table function test_all_types() is not allowed: it is not on the table function allowlist
;;
SELECT * FROM repeat_row()
;;
table function repeat_row() is not allowed: it is not on the table function allowlist
;;
SELECT col_description()
;;
SELECT combine()
;;
SELECT current_catalog()
;;
SELECT current_connection_id()
;;
SELECT current_database()
;;
SELECT current_query()
;;
SELECT current_query_id()
;;
SELECT current_schema()
;;
SELECT current_schemas()
;;
SELECT current_setting('threads')
;;
SELECT current_transaction_id()
;;
SELECT currval('seq')
;;
SELECT error(ssn) FROM customers
;;
SELECT finalize()
;;
SELECT get_block_size()
;;
SELECT getvariable('v')
;;
SELECT in_search_path()
;;
SELECT inet_client_addr()
;;
SELECT inet_client_port()
;;
SELECT inet_server_addr()
;;
SELECT inet_server_port()
;;
SELECT json_deserialize_sql('{}')
;;
SELECT json_serialize_plan('SELECT 1')
;;
SELECT json_serialize_sql('SELECT 1')
;;
SELECT nextval('seq')
;;
SELECT obj_description()
;;
SELECT parse_duckdb_log_message()
;;
SELECT pg_conf_load_time()
;;
SELECT pg_get_constraintdef()
;;
SELECT pg_get_expr()
;;
SELECT pg_get_viewdef()
;;
SELECT pg_postmaster_start_time()
;;
SELECT pg_sleep(1)
;;
SELECT setseed(0.5)
;;
SELECT shobj_description()
;;
SELECT sleep_ms(1000)
;;
SELECT stats(ssn) FROM customers
;;
SELECT txid_current()
;;
SELECT vector_type()
;;
SELECT version()
;;
SELECT write_log('x')
;;
SELECT sneaky()
;;
SELECT list_transform([1, 2], x -> nextval('seq'))
;;
SELECT * FROM '/etc/passwd'
;;
SELECT upper(name), date_trunc('month', created_at) AS m, count(*) AS n FROM customers, range(3) GROUP BY ALL
;;
SELECT name, upper(ssn) AS x FROM customers
;;
SELECT c.name, sum(o.total_cents) AS total FROM customers c JOIN orders o ON o.customer_id = c.id WHERE c.ssn = '1' GROUP BY c.name
;;
SELECT name FROM customer_directory
;;
SELECT name AS n FROM customers LIMIT 3
;;
SELECT upper(ssn) AS x FROM customers
;;
SELECT c.name, d.id FROM customers c JOIN customer_directory d ON c.ssn = d.ssn LIMIT 5
;;
SELECT name, plan FROM customers WHERE plan = 'enterprise' LIMIT 10
;;
SELECT v.x FROM (VALUES ('a@x.com'), ('b@x.com')) v(x) JOIN customers c ON c.email = v.x
;;
SELECT u.x FROM unnest(['a@x.com', 'b@x.com']) u(x) JOIN customers c ON c.email = u.x
;;
SELECT s.x FROM unnest(string_split('a@x.com,b@x.com', ',')) s(x) WHERE s.x IN (SELECT email FROM customers)
;;
SELECT r.range FROM range(1000) r SEMI JOIN customers c ON c.ssn = r.range::VARCHAR
;;
SELECT r.range FROM range(1000) r ANTI JOIN customers c ON c.ssn = r.range::VARCHAR
;;
SELECT g.k FROM (SELECT range::VARCHAR AS ssn, range AS k FROM range(100)) g JOIN customers c USING (ssn)
;;
SELECT r.range FROM range(1000) r WHERE EXISTS (SELECT 1 FROM customers c WHERE c.ssn = r.range::VARCHAR)
;;
SELECT r.range FROM range(10) r, LATERAL (SELECT 1 AS one FROM customers c WHERE c.ssn = r.range::VARCHAR LIMIT 1) l
;;
SELECT name FROM customers WHERE ssn IN (SELECT range::VARCHAR FROM range(1000))
;;
SELECT name FROM customers c WHERE c.ssn = (SELECT max(range)::VARCHAR FROM range(10))
;;
SELECT name FROM customers WHERE ssn = concat('123', '-45-6789')
;;
SELECT r.range AS pos, ch.c FROM range(1, 12) r, (VALUES ('0'), ('1'), ('2')) ch(c), customers cu WHERE substr(cu.ssn, r.range::INTEGER, 1) = ch.c
;;
SELECT count(*) AS n FROM customers WHERE left(ssn, 3) = '123'
;;
SELECT count(*) AS n FROM customers WHERE length(email) = 12
;;
SELECT name FROM customers WHERE CAST(ssn AS INTEGER) = 5
;;
SELECT name FROM customers c ANTI JOIN orders o ON left(c.ssn, 1) = o.status
;;
SELECT count(*) AS n FROM customers WHERE ssn < '5'
;;
SELECT name FROM customers WHERE ssn BETWEEN '1' AND '5'
;;
SELECT name FROM customers WHERE email >= 'm'
;;
SELECT name FROM customers WHERE ssn <> '1'
;;
SELECT name FROM customers WHERE regexp_matches(ssn, '^1')
;;
SELECT name FROM customers WHERE starts_with(email, 'a')
;;
SELECT name FROM customers WHERE ssn IN ('1', '2')
;;
SELECT name FROM customers WHERE ssn = '1' OR ssn = '2'
;;
SELECT name FROM customers WHERE NOT (ssn = '1')
;;
SELECT name FROM customers WHERE NOT (ssn IN ('1', '2') AND plan = 'x')
;;
SELECT name FROM customers WHERE CASE WHEN ssn = '1' THEN true ELSE false END
;;
SELECT o.id FROM orders o ASOF JOIN customers c ON o.customer_id = c.id AND o.status >= c.ssn
;;
SELECT segment FROM customers GROUP BY segment HAVING max(ssn) > '5'
;;
SELECT segment FROM customers GROUP BY segment HAVING count(DISTINCT ssn) = 2
;;
SELECT name FROM customers QUALIFY count(*) OVER (PARTITION BY left(ssn, 3)) > 1
;;
SELECT name FROM customers QUALIFY row_number() OVER (ORDER BY ssn) = 1
;;
SELECT name FROM (SELECT name, count(*) OVER (PARTITION BY substr(ssn, 1, 1)) AS n FROM customers) t WHERE n > 0
;;
SELECT count(*) AS n FROM customers GROUP BY left(ssn, 1)
;;
SELECT name FROM customers ORDER BY ssn
;;
SELECT name FROM customers ORDER BY email DESC LIMIT 1
;;
SELECT name FROM (SELECT name, substr(ssn, 1, 1) AS p FROM customers) t WHERE p = '1'
;;
WITH g AS (SELECT range AS v FROM range(1000)), m AS (SELECT g.v FROM g JOIN customers c ON c.ssn = g.v::VARCHAR) SELECT v FROM m
;;
WITH m AS (SELECT k.email AS e FROM contacts k JOIN customers c ON c.email = k.email) SELECT e FROM m UNION SELECT name FROM sales_reps
;;
SELECT x FROM (SELECT k.phone AS x FROM contacts k WHERE k.phone IN (SELECT ssn FROM customers)) t
;;
SELECT k.name FROM contacts k SEMI JOIN customers c ON c.ssn = k.name
;;
SELECT r.range FROM range(100000) r JOIN orders o ON o.status = r.range::VARCHAR JOIN customers c ON c.ssn = o.status
;;
SELECT k.name FROM contacts k JOIN customers c USING (email) UNION ALL SELECT k.email FROM contacts k JOIN customers c USING (email)
;;
SELECT u.x FROM customers c, LATERAL unnest([c.ssn, c.name]) u(x)
;;
SELECT c.name FROM customers c, LATERAL unnest(string_split(c.ssn, '-')) t(part) WHERE t.part = '123'
;;
SELECT r.range FROM range(10) r JOIN (SELECT ssn FROM customers GROUP BY ssn) g ON g.ssn = r.range::VARCHAR
;;
SELECT x FROM (SELECT ssn AS x FROM customers UNION ALL SELECT '1') t WHERE x = '1'
;;
WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 9) SELECT r.n FROM r JOIN customers c ON c.ssn = r.n::VARCHAR
;;
SELECT name FROM customers WHERE ssn IN (SELECT ssn FROM customers) OR name = 'x'
;;
SELECT name FROM customers LIMIT (SELECT count(*) FROM customers WHERE ssn < '5')
;;
SELECT c.name, k.name AS contact FROM customers c JOIN contacts k ON k.email = c.email
;;
SELECT c.name FROM customers c JOIN customers d ON d.ssn = c.ssn
;;
SELECT k.name FROM contacts k JOIN customers c USING (email)
;;
SELECT name FROM customers WHERE ssn = $1
;;
SELECT name FROM customers WHERE ssn = $1::VARCHAR
;;
SELECT name FROM customers WHERE ssn = '123-45-6789'
;;
SELECT name FROM customers WHERE ssn IS NOT DISTINCT FROM '123-45-6789'
;;
SELECT name FROM customers WHERE email = 'a@example.com' AND plan = 'pro'
;;
SELECT name FROM customers WHERE ssn IN (SELECT ssn FROM customers WHERE plan = 'pro')
;;
SELECT name FROM customers WHERE ssn NOT IN (SELECT ssn FROM support_tickets t JOIN customers c ON c.id = t.customer_id)
;;
SELECT name FROM customers c WHERE EXISTS (SELECT 1 FROM contacts k WHERE k.customer_id = c.id AND k.email = c.email)
;;
SELECT name FROM customers c SEMI JOIN customers d ON c.ssn = d.ssn
;;
SELECT name FROM customers c ANTI JOIN contacts k ON k.email = c.email
;;
SELECT count(*) AS n FROM customers GROUP BY ssn
;;
SELECT DISTINCT ON (ssn) name FROM customers ORDER BY name
;;
SELECT name FROM customers WHERE email IS NULL
;;
SELECT plan, count(*) AS n FROM customers GROUP BY plan, ssn IS NULL
;;
SELECT name FROM customers WHERE ssn = '1' AND email = 'a@example.com'
;;
SELECT id FROM orders WHERE order_date < (SELECT max(order_date) - INTERVAL 14 DAY FROM orders)
;;
SELECT id FROM orders WHERE total_cents > (SELECT avg(total_cents) FROM orders)
;;
SELECT name, (SELECT count(*) FROM orders) AS n FROM customers
;;
SELECT c.name, l.t FROM customers c, LATERAL (SELECT total_cents AS t FROM orders o WHERE o.customer_id = c.id ORDER BY total_cents DESC LIMIT 2) l
;;
SELECT c.name, u.x FROM customers c, LATERAL unnest([c.id, c.rep_id]) u(x)
;;
SELECT c.name, t.u FROM customers c, unnest(string_split(c.plan, ',')) t(u)
;;
DESCRIBE customer_directory
;;
SELECT name FROM customers WHERE ssn = '123-45-6789' LIMIT 1
;;
SELECT name FROM customers WHERE ssn = $1::VARCHAR LIMIT 1
;;
SELECT c.name FROM customers c JOIN contacts k ON k.email = c.email LIMIT 5
;;
SELECT count(*) AS n FROM customers GROUP BY ssn LIMIT 5
;;
SELECT name FROM customers WHERE ssn IN (SELECT ssn FROM customers WHERE plan = 'pro') LIMIT 5
;;
SELECT name FROM customers WHERE ssn = '1'
;;
SELECT name FROM customers LIMIT 5
;;
SELECT c.name FROM customers c JOIN orders o ON o.customer_id = c.id LIMIT 5
;;
SELECT count(*) AS n
FROM customers
WHERE ssn < '5'
;;
DESCRIBE SELECT * FROM customers
;;
DESCRIBE (SELECT ssn FROM customers)
;;
DESCRIBE range(10)
;;
SELECT error('More than one row returned by a subquery used as an expression') AS e
;;
SELECT name FROM customers WHERE id = (SELECT error(ssn) FROM customers LIMIT 1)
;;
SELECT * FROM (SELECT name FROM customers LIMIT 5)
;;
SELECT name FROM customers LIMIT 101
;;
SELECT name FROM customers LIMIT 100
;;
SELECT c.name FROM customers c JOIN orders o ON o.customer_id = c.id JOIN support_tickets t ON t.customer_id = c.id
;;
table customers is blocked by configuration
;;
WITH x AS (SELECT id FROM customers) SELECT count(*) FROM x
;;
SELECT id FROM orders WHERE customer_id IN (SELECT id FROM customers)
;;
SELECT id FROM orders
;;
SELECT o.id FROM orders o JOIN sales_reps r ON r.id = o.id
;;
table sales_reps is not in sql_allowed_tables
;;
UPDATE orders SET status = 'x'
;;
UPDATE orders SET status = (SELECT max(status) FROM orders WHERE id = 2)
;;
INSERT INTO orders(id) VALUES (1) RETURNING *
;;
DELETE FROM orders
;;
SELECT name FROM customers LIMIT 10
;;
SELECT count(*) FROM orders
;;
SELECT name FROM customers WHERE ssn = '1' LIMIT 1
;;
SELECT name FROM (SELECT name, ssn FROM customers) t LIMIT 1
;;
CREATE TABLE t9(a INTEGER)
;;
SELECT ssn FROM customers
;;
SELECT c.name FROM customers c JOIN orders o ON o.customer_id = c.id JOIN support_tickets t ON t.customer_id = c.id JOIN contacts k ON k.customer_id = c.id JOIN sales_reps r ON r.id = c.rep_id WHERE c.id IN (SELECT customer_id FROM orders) LIMIT 5
;;
SELECT 2 * 21 AS answer, 'x' AS y
;;
SELECT 1 UNION ALL SELECT 2
;;
WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT * FROM r
;;
SELECT * FROM (VALUES (1), (2)) t(x)
;;
SELECT upper(ssn) FROM customers
;;
SELECT name FROM customers INDEXED BY idx
;;
CREATE TABLE customers(id INTEGER, name TEXT, ssn TEXT);INSERT INTO customers VALUES (1, 'a', '123-45-6789');
;;
SELECT name || ssn AS x FROM customers
;;
