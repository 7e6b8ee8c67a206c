-- demo.sql — the sluice demo database: a small sales/support business, 2025-01 .. 2026-09.
-- Loaded by `sluice demo-db` into a fresh read-write DuckDB (then copied to SQLite when asked).
--
-- Deterministic: no random(). Every "random" choice is pick(key, salt, n), a Park-Miller hash of
-- an integer key, so the same rows come out on every run and every machine.
-- Patterns the seed questions look for (and the demo tests check):
--   * "decliners" (about 1 customer in 8, more among enterprise): from a start month between
--     2025-10 and 2026-02 their monthly spend falls every month and their ticket volume rises;
--     about half of them were contacted in the 14 days before 2026-09-30, half were not.
--   * so enterprise customers whose 2026-Q2 order revenue fell against 2026-Q1 with more than
--     three tickets in 2026-Q2 exist (seed 003), and account_quarterly_metrics has accounts with
--     steep 2026-Q1 drops and ticket_count > 3 (seed 000).
-- Temporary macros and tables are not saved in the file.

CREATE TEMP MACRO mix(x) AS ((CAST(x AS BIGINT) % 2147483647) * 48271) % 2147483647;
CREATE TEMP MACRO pick(key, salt, n) AS
    mix(mix(mix(CAST(key AS BIGINT) * 1000003 + CAST(salt AS BIGINT) * 7919 + 12345)) + 1) % (n);

CREATE TABLE sales_reps AS
SELECT id::INTEGER AS id,
       (['Alex', 'Blake', 'Casey', 'Dana', 'Eli', 'Frankie', 'Gray', 'Harper', 'Indy',
         'Jordan'])[1 + id % 10] || ' ' ||
       (['Reyes', 'Okafor', 'Lindqvist', 'Tanaka', 'Moreau', 'Patel', 'Novak',
         'Schmidt'])[1 + (id // 10) % 8] AS name,
       (['NA-East', 'NA-West', 'EMEA', 'APAC'])[1 + id % 4] AS region,
       'rep' || id || '@sluice-demo.example' AS email,
       CAST(DATE '2019-01-01' + CAST(pick(id, 1, 2000) AS INTEGER) AS DATE) AS hired_on,
       CAST(25000000 + pick(id, 2, 40) * 1000000 AS BIGINT) AS annual_quota_cents
FROM range(1, 41) t(id)
ORDER BY id;

CREATE TEMP TABLE gen_customers AS
SELECT id,
       CASE WHEN pick(id, 10, 100) < 15 THEN 'enterprise'
            WHEN pick(id, 10, 100) < 50 THEN 'pro'
            ELSE 'free' END AS plan,
       CASE WHEN id % 10 = 7
            THEN DATE '2025-01-01' + CAST(pick(id, 11, 420) AS INTEGER)
            ELSE DATE '2022-01-01' + CAST(pick(id, 11, 1095) AS INTEGER) END AS created_on
FROM range(1, 5001) t(id);

CREATE TEMP TABLE gen_flags AS
SELECT id, plan, created_on,
       created_on < DATE '2025-06-01'
           AND pick(id, 12, 100) < CASE plan WHEN 'enterprise' THEN 30 ELSE 10 END AS decliner,
       9 + pick(id, 13, 5) AS decline_start -- month index: 9 = 2025-10 .. 13 = 2026-02
FROM gen_customers;

CREATE TABLE customers AS
SELECT g.id::INTEGER AS id,
       (['Bright', 'Silver', 'Northern', 'Blue', 'Granite', 'Swift', 'Quiet', 'Golden', 'Red',
         'Clear', 'Iron', 'Maple', 'Harbor', 'Summit', 'Cedar', 'Prairie', 'Coastal', 'Urban',
         'Pioneer', 'Atlas', 'Beacon', 'Crescent', 'Evergreen', 'Lakeside', 'Polar'])
           [1 + (g.id - 1) % 25] || ' ' ||
       (['Logistics', 'Analytics', 'Foods', 'Robotics', 'Health', 'Media', 'Energy', 'Labs',
         'Retail', 'Finance', 'Studios', 'Systems', 'Textiles', 'Motors', 'Pharma', 'Travel',
         'Farms', 'Networks', 'Builders', 'Optics', 'Apparel', 'Security', 'Dental', 'Freight',
         'Capital', 'Brewing', 'Software', 'Marine', 'Outdoors', 'Publishing', 'Insurance',
         'Partners', 'Devices', 'Kitchens', 'Aviation', 'Clinics', 'Metals', 'Games', 'Schools',
         'Water'])[1 + ((g.id - 1) // 25) % 40] || ' ' ||
       (['Inc', 'Co', 'Group', 'Ltd', 'LLC'])[1 + ((g.id - 1) // 1000) % 5] AS name,
       g.plan,
       CASE g.plan
           WHEN 'enterprise' THEN CASE WHEN pick(g.id, 14, 4) = 0 THEN 'Public Sector'
                                       ELSE 'Enterprise' END
           WHEN 'pro' THEN CASE WHEN pick(g.id, 14, 5) = 0 THEN 'SMB' ELSE 'Mid-Market' END
           ELSE 'SMB' END AS segment,
       'billing' || g.id || '@customer' || (g.id % 97) || '.example' AS email,
       printf('%03d-%02d-%04d', 100 + pick(g.id, 15, 800), 10 + pick(g.id, 16, 89),
              1000 + pick(g.id, 17, 8999)) AS ssn,
       CAST(g.created_on AS TIMESTAMP) + to_seconds(CAST(28800 + pick(g.id, 18, 36000) AS BIGINT))
           AS created_at,
       (1 + pick(g.id, 19, 40))::INTEGER AS rep_id
FROM gen_flags g
ORDER BY g.id;

-- One row per customer and month in which the customer existed (month 0 = 2025-01).
CREATE TEMP TABLE gen_months AS
SELECT f.id AS customer_id, f.plan, f.decliner, f.decline_start, m.m,
       CAST(DATE '2025-01-01' + to_months(CAST(m.m AS INTEGER)) AS DATE) AS month_start,
       f.decliner AND m.m >= f.decline_start AS declining
FROM gen_flags f CROSS JOIN range(0, 21) m(m)
WHERE date_trunc('month', f.created_on) <= DATE '2025-01-01' + to_months(CAST(m.m AS INTEGER));

CREATE TEMP TABLE gen_orders AS
SELECT customer_id, m, month_start, declining, decline_start, plan, unnest(range(n)) AS k
FROM (SELECT *,
             CASE plan WHEN 'enterprise' THEN 6 WHEN 'pro' THEN 3 ELSE 1 END
             + CASE WHEN decliner THEN 0 ELSE pick(customer_id * 100 + m, 20, 3) - 1 END AS n
      FROM gen_months);

CREATE TABLE orders AS
SELECT (row_number() OVER (ORDER BY order_date, customer_id, k))::INTEGER AS id,
       customer_id::INTEGER AS customer_id, order_date, total_cents, status
FROM (SELECT customer_id, k,
             CAST(month_start + CAST(pick(customer_id * 1000 + m * 10 + k, 21,
                                          day(last_day(month_start))) AS INTEGER) AS DATE)
                 AS order_date,
             CAST(CASE plan WHEN 'enterprise' THEN 180000 WHEN 'pro' THEN 24000 ELSE 4000 END
                  * CASE WHEN declining -- a steady per-customer level, falling 20% a month
                         THEN (80 + pick(customer_id, 24, 41)) / 100.0 * pow(0.8, m - decline_start)
                         ELSE (70 + pick(customer_id * 1000 + m * 10 + k, 22, 61)) / 100.0 END
                  AS BIGINT) AS total_cents,
             CASE WHEN declining THEN 'completed'
                  WHEN m = 20 AND pick(customer_id * 1000 + m * 10 + k, 23, 100) < 40 THEN 'pending'
                  WHEN pick(customer_id * 1000 + m * 10 + k, 23, 100) < 88 THEN 'completed'
                  WHEN pick(customer_id * 1000 + m * 10 + k, 23, 100) < 93 THEN 'refunded'
                  WHEN pick(customer_id * 1000 + m * 10 + k, 23, 100) < 97 THEN 'cancelled'
                  ELSE 'pending' END AS status
      FROM gen_orders)
ORDER BY id;

CREATE TEMP TABLE gen_tickets AS
SELECT customer_id, m, month_start, declining, plan, unnest(range(n)) AS k
FROM (SELECT *,
             CASE WHEN declining THEN 1 + least(m - decline_start, 4)
                  ELSE CASE WHEN pick(customer_id * 100 + m, 30, 100)
                                 < CASE plan WHEN 'enterprise' THEN 45 WHEN 'pro' THEN 30
                                             ELSE 12 END THEN 1 ELSE 0 END
                       + CASE WHEN pick(customer_id * 100 + m, 31, 100) < 6 THEN 1 ELSE 0 END
             END AS n
      FROM gen_months);

CREATE TABLE support_tickets AS
SELECT (row_number() OVER (ORDER BY created_at, customer_id, k))::INTEGER AS id,
       customer_id::INTEGER AS customer_id, created_at, status, priority, subject
FROM (SELECT customer_id, k, m,
             make_timestamp(year(month_start), month(month_start),
                            1 + pick(customer_id * 1000 + m * 10 + k, 32,
                                     day(last_day(month_start))),
                            7 + pick(customer_id * 1000 + m * 10 + k, 33, 12),
                            pick(customer_id * 1000 + m * 10 + k, 34, 60),
                            pick(customer_id * 1000 + m * 10 + k, 35, 60)) AS created_at,
             CASE WHEN m >= 19 AND pick(customer_id * 1000 + m * 10 + k, 36, 3) > 0
                  THEN (['open', 'pending'])[1 + pick(customer_id * 1000 + m * 10 + k, 37, 2)]
                  ELSE (['closed', 'resolved'])[1 + pick(customer_id * 1000 + m * 10 + k, 37, 2)]
             END AS status,
             (['low', 'normal', 'high', 'urgent'])
                 [1 + least(3, pick(customer_id * 1000 + m * 10 + k, 38, 4)
                               + CASE WHEN declining THEN 1 ELSE 0 END)] AS priority,
             (['Cannot log in', 'Invoice is wrong', 'Export to CSV fails', 'Slow dashboard',
               'Need a refund', 'API rate limit reached', 'Missing data in report',
               'Password reset email not received', 'Integration stopped syncing',
               'Question about pricing', 'Feature request: SSO', 'Data import error'])
                 [1 + pick(customer_id * 1000 + m * 10 + k, 39, 12)] AS subject
      FROM gen_tickets)
ORDER BY id;

CREATE TABLE contacts AS
SELECT f.id::INTEGER AS customer_id,
       TIMESTAMP '2026-09-30 17:00:00'
           - to_days(CAST(CASE WHEN f.decliner THEN pick(f.id, 40, 28)
                               ELSE pick(f.id, 40, 150) END AS INTEGER))
           - to_seconds(CAST(pick(f.id, 41, 30000) AS BIGINT)) AS last_contacted_at,
       (['email', 'phone', 'meeting', 'chat'])[1 + pick(f.id, 42, 4)] AS channel,
       c.rep_id,
       (['reached', 'voicemail', 'no_response', 'scheduled_call'])[1 + pick(f.id, 43, 4)]
           AS outcome
FROM gen_flags f JOIN customers c ON c.id = f.id
ORDER BY customer_id;

CREATE TABLE account_quarterly_metrics AS
WITH q_orders AS (
    SELECT customer_id, year(order_date) || '-Q' || quarter(order_date) AS quarter,
           sum(total_cents) AS cents
    FROM orders GROUP BY ALL),
q_tickets AS (
    SELECT customer_id, year(created_at) || '-Q' || quarter(created_at) AS quarter,
           count(*) AS tickets
    FROM support_tickets GROUP BY ALL),
keys AS (
    SELECT customer_id, quarter FROM q_orders
    UNION SELECT customer_id, quarter FROM q_tickets)
SELECT c.rep_id, k.customer_id, k.quarter,
       CAST(CAST(coalesce(o.cents, 0) AS DECIMAL(18, 0)) * 0.01 AS DECIMAL(14, 2))
           AS quarterly_revenue,
       CAST(coalesce(t.tickets, 0) AS INTEGER) AS ticket_count
FROM keys k
JOIN customers c ON c.id = k.customer_id
LEFT JOIN q_orders o ON o.customer_id = k.customer_id AND o.quarter = k.quarter
LEFT JOIN q_tickets t ON t.customer_id = k.customer_id AND t.quarter = k.quarter
ORDER BY k.customer_id, k.quarter;

CREATE TABLE invoices AS
SELECT (row_number() OVER (ORDER BY date, customer_id))::INTEGER AS id,
       customer_id, date, status, total
FROM (SELECT customer_id,
             last_day(date_trunc('month', order_date)) AS date,
             CASE WHEN date_trunc('month', order_date) >= DATE '2026-09-01' THEN 'open'
                  WHEN date_trunc('month', order_date) >= DATE '2026-07-01'
                       AND pick(customer_id * 100 + month(order_date), 50, 100) < 25 THEN 'overdue'
                  WHEN pick(customer_id * 100 + month(order_date), 51, 100) < 4 THEN 'void'
                  ELSE 'paid' END AS status,
             CAST(CAST(sum(total_cents) AS DECIMAL(18, 0)) * 0.01 AS DECIMAL(12, 2)) AS total
      FROM orders
      WHERE status <> 'cancelled'
      GROUP BY customer_id, date_trunc('month', order_date), month(order_date))
ORDER BY id;
