SELECT 1e3 AS a, 1.5e-7 AS b, 1e21 AS c, 1e22 AS d, 2.5e300 AS e, -0.0e0 AS f, 5e-324 AS g, 0.1e-5 AS h
;;
SELECT 123456789.125e0, 1e15, 1e16, 1e20, 123456789012345678e0, 0.000001e0, 0.0000001e0
;;
SELECT 170141183460469231731687303715884105727 AS big, -170141183460469231731687303715884105727 AS small, 18446744073709551615 AS u64
;;
SELECT 123456789012345678901234567890.123 AS dec, 1.5 AS d2, 0.001 AS d3
;;
SELECT 'tab	quote'' backslash\ slash/ "dq" ünïcødé 😀' AS s, '' AS empty, NULL AS n
;;
SELECT 'abcdefgü' AS straddles_a_word, 'abcdefgh😀' AS after_a_word, 'ü' AS first, 'abcdefghijklmnop' AS two_words
;;
SELECT E'line\nnext\x01\x1f\r\b\f' AS esc
;;
SELECT '\xAA\x00'::BLOB AS b, 'abc'::BLOB AS c
;;
SELECT * FROM orders USING SAMPLE 10%
;;
SELECT * FROM orders USING SAMPLE 2.5 PERCENT (bernoulli, 7)
;;
SELECT [1, 2, 3] AS l, {'a': 1, 'b': 'x'} AS st, MAP {'k': 1} AS m, INTERVAL 3 DAY AS iv, DATE '2026-01-01' AS dt
;;
SELECT id, row_number() OVER (PARTITION BY customer_id ORDER BY total_cents DESC) AS rn FROM orders QUALIFY rn = 1
;;
SELECT list_transform([1, 2], x -> x + 1), CASE WHEN id > 1 THEN 'a' ELSE 'b' END FROM orders
;;
SELECT customer_id, sum(total_cents) FILTER (WHERE status = 'paid') FROM orders GROUP BY ALL ORDER BY ALL
;;
SELECT * FROM (SELECT 1 AS x UNION ALL SELECT 2) t EXCEPT SELECT 3
;;
WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 10) SELECT n FROM r
;;
WITH m AS MATERIALIZED (SELECT * FROM orders) SELECT count(*) FROM m
;;
SELECT $1::INTEGER + ?, $name
;;
SELECT id::DOUBLE / 3.0, total_cents::FLOAT FROM orders WHERE total_cents > 1.5e2
;;
SELEC 1
;;
SELECT * FROM no_such_table
;;
SELECT 1; SELECT 2
;;
INSERT INTO orders VALUES (1, 2, DATE '2026-01-01', 3, 'x')
;;
DESCRIBE orders
;;
PIVOT orders ON status USING sum(total_cents)
;;
FROM orders SELECT id LIMIT 3 OFFSET 2
;;
SELECT {'x': [1.5e0, 2.25e-3]} AS nested, [[]] AS empty_nested, [] AS empty_list, {'a': NULL} AS null_field
;;
SELECT 'a' COLLATE NOCASE = 'A', 'x' LIKE 'y' ESCAPE '\', 'x' SIMILAR TO 'x.*'
;;
SELECT * FROM orders o ASOF JOIN customers c ON o.customer_id = c.id AND o.order_date >= c.created_at
;;
SELECT count(DISTINCT status), string_agg(status, ',' ORDER BY id) FROM orders
;;
SELECT COLUMNS('total.*') FROM orders
;;
SELECT * EXCLUDE (status) REPLACE (total_cents * 2 AS total_cents) FROM orders
;;
SELECT TRY_CAST('x' AS INTEGER), 'x'::VARCHAR(10), CAST(1 AS DECIMAL(38, 10)), 1::HUGEINT, 2::UHUGEINT
;;

;;
   
;;
SELECT 1 -- trailing comment
;;
