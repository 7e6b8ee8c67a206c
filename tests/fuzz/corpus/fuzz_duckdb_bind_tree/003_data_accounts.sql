SELECT
  a.account_name,
  SUM(o.total_cents) / 100.0 AS revenue,
  COUNT(p.number) AS open_prs
FROM data.accounts a
JOIN data.orders o
  ON o.account_id = a.account_id
LEFT JOIN github.pulls p
  ON p.user_login = a.github_login
WHERE p.owner = 'CITGuru'
  AND p.repo = 'pawrly'
  AND p.state = 'open'
GROUP BY a.account_name
ORDER BY revenue DESC
LIMIT 50;
