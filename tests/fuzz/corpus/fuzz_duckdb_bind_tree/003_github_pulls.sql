SELECT
  "user.login" AS author,
  COUNT(*) AS open_prs
FROM github_pulls
GROUP BY author
ORDER BY open_prs DESC;
