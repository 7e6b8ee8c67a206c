-- write_role.sql — the write role for routes that may change data (docs/postgres.md), next to
-- read_role.sql. Run as the database owner or a superuser, connected to the database:
--   psql -d app -v write_password="'...'" -f write_role.sql
-- sluice connects as it (write_conninfo) only for INSERT, UPDATE, MERGE, DELETE and TRUNCATE of
-- routes that allow them; reads never use it. Grant it exactly the changes the routes' allowed
-- operations name, per table and per column; nothing else.

CREATE ROLE sluice_write LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT NOREPLICATION
    CONNECTION LIMIT 8;
\if :{?write_password}
ALTER ROLE sluice_write PASSWORD :write_password;
\endif
ALTER ROLE sluice_write SET statement_timeout = '60s';
ALTER ROLE sluice_write SET idle_in_transaction_session_timeout = '60s';
ALTER ROLE sluice_write SET lock_timeout = '10s';

GRANT CONNECT ON DATABASE :"DBNAME" TO sluice_write;
GRANT USAGE ON SCHEMA public TO sluice_write;

-- Seed 000's power users may run update_budget_note: change the note, find rows by id.
-- UPDATE ... WHERE id = ... needs SELECT on the columns it reads.
GRANT SELECT (id, note), UPDATE (note) ON budget_note TO sluice_write;
