-- schema_notes.sql — a small database with keys, comments and enum-like columns for
-- model_text.test.mjs (code-mode://schema); ssn has two values and is blocked there.
CREATE TABLE accounts (id INTEGER PRIMARY KEY, name VARCHAR, tier VARCHAR, ssn VARCHAR);
COMMENT ON TABLE accounts IS 'One row per customer account';
COMMENT ON COLUMN accounts.tier IS 'Pricing tier';
CREATE TABLE invoices (id INTEGER PRIMARY KEY, account_id INTEGER REFERENCES accounts(id), status VARCHAR, amount DECIMAL(10,2));
INSERT INTO accounts SELECT i, 'acct ' || i, CASE WHEN i % 3 = 0 THEN 'gold' WHEN i % 3 = 1 THEN 'silver' ELSE 'bronze' END, 'ssn' || (i % 2) FROM range(1, 101) t(i);
INSERT INTO invoices SELECT i, 1 + i % 100, CASE WHEN i % 2 = 0 THEN 'paid' ELSE 'open' END, i FROM range(1, 501) t(i);
