SELECT range % 7 AS r FROM range(1000) WHERE range % 3 = 0
;;
SELECT range % 10 AS k, count(*) AS n FROM range(10000) GROUP BY range % 10
;;
SELECT (range % 10)::UTINYINT AS k, count(*) AS n FROM range(1000) GROUP BY k
;;
SELECT count(*) AS n, sum(range) AS s FROM range(5000)
;;
SELECT a.range AS x, b.range AS y FROM range(3000) a JOIN range(200) b ON a.range = b.range
;;
SELECT a.range AS x, b.range AS y FROM range(3) a JOIN range(2) b ON a.range <> b.range
;;
SELECT a.range AS x, b.range AS y FROM range(3000) a JOIN range(2000) b ON a.range < b.range
;;
SELECT a.range AS x, b.range AS y FROM range(3000) a JOIN range(2000) b ON a.range < b.range AND a.range + 10 > b.range
;;
SELECT a.range AS x, b.range AS y FROM range(300) a ASOF JOIN range(200) b ON a.range >= b.range
;;
SELECT a.range AS x, b.range AS y FROM range(300) a JOIN range(200) b ON a.range + b.range = 7 OR a.range = 3
;;
SELECT a.range AS x, b.range AS y FROM range(30) a, range(20) b
;;
SELECT * FROM range(10) a POSITIONAL JOIN range(20) b
;;
SELECT * FROM (VALUES (1, 'a'), (2, 'b'), (3, 'c')) t(x, y)
;;
SELECT * FROM (VALUES (random()), (2.0)) t(x)
;;
SELECT a.range AS x, (SELECT max(b.range) FROM range(100) b WHERE b.range < a.range) AS m FROM range(1000) a
;;
SELECT a.range AS x FROM range(1000) a WHERE EXISTS (SELECT 1 FROM range(50) b WHERE b.range = a.range % 40 AND b.range > a.range % 7)
;;
WITH t AS MATERIALIZED (SELECT range AS v FROM range(100)) SELECT a.v, b.v FROM t a JOIN t b ON a.v = b.v
;;
WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 10) SELECT n FROM r
;;
WITH RECURSIVE r(n, v) USING KEY (n) AS (SELECT 1, 1 UNION SELECT r.n + 1, r.v FROM r JOIN recurring.r rr ON rr.n = r.n WHERE r.n < 5) SELECT * FROM r
;;
SELECT t.range AS x, g.generate_series AS y FROM range(30) t, generate_series(1, t.range) g
;;
SELECT t.range AS x, u.u FROM range(30) t, unnest([t.range, 2]) u(u)
;;
SELECT row_number() OVER () AS rn FROM range(10)
;;
SELECT sum(range) OVER (PARTITION BY range % 3) AS s FROM range(100)
;;
SELECT range FROM range(1000) ORDER BY range DESC
;;
SELECT range FROM range(1000) ORDER BY range DESC LIMIT 5
;;
SELECT range FROM range(1000) LIMIT 5 OFFSET 10
;;
SELECT range FROM range(1000) LIMIT 10%
;;
SELECT range FROM range(100) UNION ALL SELECT range FROM range(50)
;;
SELECT range FROM range(100) UNION SELECT range FROM range(50)
;;
SELECT range FROM range(10) WHERE false
;;
SELECT 1 AS one
;;
SELECT unnest([1, 2, 3]) AS u
;;
SELECT * FROM range(1000) USING SAMPLE 10 ROWS
;;
SELECT * FROM range(1000) USING SAMPLE 10% (bernoulli)
;;
SELECT * FROM orders POSITIONAL JOIN customers
;;
SELECT id FROM orders WHERE customer_id IN (SELECT id FROM customers WHERE plan = 'pro')
;;
SELECT range FROM range(100) EXCEPT SELECT range FROM range(50)
;;
SELECT range FROM range(100) INTERSECT SELECT range FROM range(50)
;;
SELECT a.range, b.range FROM range(10) a LEFT JOIN LATERAL (SELECT range FROM range(5) WHERE range < a.range) b ON true
;;
SELECT a.range AS x, (SELECT count(*) FROM range(100000) b WHERE b.range % 100 = a.range) AS m FROM range(3) a
;;
