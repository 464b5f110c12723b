/*
** tracestore_duckdb_int.h: what the files of the DuckDB extension share.
**
**   tracestore_duckdb.c       the entry point: the DuckDB API version, the
**                             RTL, the read guard, registration
**   tracestore_duckdb_scan.c  tracestore_scan(): a store as a table
**   tracestore_duckdb_views.c tracestore_attach(), the views, their
**                             functions
**   tracestore_duckdb_rows.c  which records a scan reads, and their values
**                             (without DuckDB: tracestore_duckdb_rows.h)
**
** Zone: hosted (the DuckDB extension); included only by the files of
** DuckDbExt/.
*/
#ifndef TRACER_DUCKDBEXT_TRACESTORE_DUCKDB_INT_H
#define TRACER_DUCKDBEXT_TRACESTORE_DUCKDB_INT_H

#include <duckdb_extension.h>

#include "TraceStore/TraceStore.h"

/* The RTL every session of the extension is opened with (its read-only
** mappings go through the read guard). */
PRTL tsdRtl(void);

/* Registers tracestore_scan (tracestore_duckdb_scan.c).  0 or -1. */
int tsdRegisterScan(duckdb_connection con);

/*
** Registers tracestore_attach, the replacement scan, the view macros and
** the views' SQL functions (tracestore_duckdb_views.c).  0; -1 if a
** function could not be registered; 1 if only the macros could not be
** made (a read-only database): zErr says why.
*/
int tsdRegisterViews(duckdb_connection con, duckdb_database db, char *zErr,
                     int nErr);

#endif /* TRACER_DUCKDBEXT_TRACESTORE_DUCKDB_INT_H */
