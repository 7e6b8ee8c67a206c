-- rule: statement_not_allowed
-- message: SUMMARIZE is not allowed
SUMMARIZE customers
