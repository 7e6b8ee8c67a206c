/*
 * dialect.h — the "sql" language the registry serves: DuckDB's analyzer or PostgreSQL's,
 * chosen per call by the context's engine (lang/dialect.c).
 */
#ifndef SLUICE_LANG_DIALECT_H
#define SLUICE_LANG_DIALECT_H

#include "lang/frontend.h"

const sluice_frontend *sluice_lang_sql_dialects(void);

#endif
