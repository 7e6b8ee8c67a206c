DESCRIBE github_pulls;
