-- read_role.sql — the least-privilege roles for sluice on PostgreSQL (docs/postgres.md).
-- Run as the database owner or a superuser, connected to the database sluice reads:
--   psql -d app -v read_password="'...'" -f read_role.sql
-- (omit read_password for peer or certificate authentication). Then, if some blocked columns
-- need not be joined or filtered on either, take them out of the grant (see the doc).

-- The owner of the exposed tables never logs in.
CREATE ROLE sluice_owner NOLOGIN;

-- The role sluice connects as: read only, by grants first and by default second.
CREATE ROLE sluice_read LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT NOREPLICATION
    CONNECTION LIMIT 16;
\if :{?read_password}
ALTER ROLE sluice_read PASSWORD :read_password;
\endif
ALTER ROLE sluice_read SET default_transaction_read_only = on;
ALTER ROLE sluice_read SET statement_timeout = '60s';
ALTER ROLE sluice_read SET idle_in_transaction_session_timeout = '60s';

-- Nothing by default: no temporary tables, no objects in public.
REVOKE ALL ON DATABASE :"DBNAME" FROM PUBLIC;
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
GRANT CONNECT ON DATABASE :"DBNAME" TO sluice_read;
GRANT USAGE ON SCHEMA public TO sluice_read;

-- SELECT on the exposed tables only (here: every table in public).
GRANT SELECT ON ALL TABLES IN SCHEMA public TO sluice_read;

-- Functions with side effects that a read-only transaction does not stop.
REVOKE EXECUTE ON FUNCTION pg_catalog.pg_notify(text, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION pg_catalog.pg_logical_emit_message(boolean, text, text) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION pg_catalog.pg_logical_emit_message(boolean, text, bytea) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION pg_catalog.pg_advisory_lock(bigint) FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION pg_catalog.pg_advisory_xact_lock(bigint) FROM PUBLIC;
