-- rule: unanalyzable
-- message: cannot analyze plan operator LOGICAL_POSITIONAL_JOIN; the statement is refused
SELECT c.name, o.id FROM customers c POSITIONAL JOIN orders o
