SELECT
  a.account_name,
  COUNT(p.number) AS open_prs
FROM read_csv_auto('accounts.csv') a
JOIN github_pulls p
  ON p."user.login" = a.github_login
GROUP BY a.account_name
ORDER BY open_prs DESC;
