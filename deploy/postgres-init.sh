#!/bin/sh
# The service's own database role, made once by the postgres image when its volume is new
# (it runs /docker-entrypoint-initdb.d/*.sh as the superuser): `todo` may log in with
# APP_DB_PASSWORD and owns the database `todo` and its schema `public`, where the service's
# migrations create their tables, and nothing else. It is no superuser and cannot create
# databases or roles; the superuser's password (POSTGRES_PASSWORD) stays with PostgreSQL.
# psql quotes the values itself (:"name" an identifier, :'value' a literal), so a password
# may hold any character. test/operations/compose.test.ts runs this file on PostgreSQL.
set -eu
psql -v ON_ERROR_STOP=1 --no-psqlrc --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
  --set role="${APP_DB_USER:-todo}" --set password="$APP_DB_PASSWORD" \
  --set database="$POSTGRES_DB" <<'SQL'
CREATE ROLE :"role" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS
  PASSWORD :'password';
ALTER DATABASE :"database" OWNER TO :"role";
ALTER SCHEMA public OWNER TO :"role";
REVOKE ALL ON DATABASE :"database" FROM PUBLIC;
GRANT CONNECT, TEMPORARY ON DATABASE :"database" TO :"role";
SQL
