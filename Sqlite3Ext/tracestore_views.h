/*
** tracestore_views.h: the parts of the Tracer SQLite extension that sit
** on top of the store tables (internal to Sqlite3Ext/ and the tracestore
** command; the public entry point is tracestore.h).
**
**   tracestore_args.c     tracestore_args() table-valued function and
**                         tracestore_arg(): the fields of an event's text
**   tracestore_views.c    the views tracestore_attach() creates (event,
**                         args, kvm_exit_reasons, ...) and the SQL
**                         functions they use (kvm_exit_reason_name,
**                         syscall_name, syscall_nr)
**   tracestore_doc.c      the documentation of the views, rollup tables,
**                         store_info, tracestore_args and the functions
**   tracestore_schema.c   the schema documentation (docs/schema.md, `tracestore
**                         schema`, tracestore_schema()), generated from the
**                         store descriptors and the tables below
**
** Zone: hosted (the SQLite extension): SQLite's API; included only by the
** files of Sqlite3Ext/.
*/
#ifndef TRACER_SQLITE3EXT_TRACESTORE_VIEWS_H
#define TRACER_SQLITE3EXT_TRACESTORE_VIEWS_H

#include <sqlite3.h>

/*
** Documentation of one column of a view or table-valued function, or one
** SQL function (tracestore_doc.c), from which docs/schema.md is generated.  A list ends with an entry whose zName is 0.
*/
typedef struct tracestore_doc_column tracestore_doc_column;
struct tracestore_doc_column {
  const char *zName;            /* Column name */
  const char *zType;            /* INTEGER, TEXT, REAL */
  const char *zDesc;            /* One line */
};

typedef struct tracestore_doc_object tracestore_doc_object;
struct tracestore_doc_object {
  const char *zName;            /* View, table or function name */
  const char *zKind;            /* "view", "table", "table-valued function",
                                ** "function" */
  const char *zNeeds;           /* When it exists (e.g. "kvm_exit store") */
  const char *zDesc;            /* What it answers; may span lines */
  const char *zExample;         /* One SQL example, or 0 */
  const tracestore_doc_column *aCol;  /* Columns (0 for a function) */
};

/* Marks the text of the union views of tracestore_fleet.c. */
#define TS_FLEET_MARK "/* tracestore sessions */"

/* Registers tracestore_attach_sessions() (tracestore_fleet.c). */
int tracestoreFleetInit(sqlite3 *db);

/*
** Drops what tracestore_attach_sessions() made in temp (the union views,
** and the tracestore tables and views of a single session there): before
** another call of it, or a tracestore_attach() into temp.
*/
int tracestoreFleetClear(sqlite3 *db, char **pzErr);

/* True if temp holds what tracestore_attach_sessions() made. */
int tsFleetInTemp(sqlite3 *db);

/*
** The views of tracestoreViewsAttach() over nSes sessions attached in
** schemas azSchema[] (tracestore_views.c), in temp, with session and host
** columns (azHost[i] may be NULL).
*/
int tracestoreViewsFleet(sqlite3 *db, int nSes, const char *const *azSchema,
                         const char *const *azHost, char **pzErr);

/* Registers tracestore_args, tracestore_arg() (tracestore_args.c). */
int tracestoreArgsInit(sqlite3 *db);

/* Registers the SQL functions of tracestore_views.c. */
int tracestoreViewsInit(sqlite3 *db);

/* Registers tracestore_schema() (tracestore_schema.c). */
int tracestoreSchemaInit(sqlite3 *db);

/*
** Creates, keeps or replaces the views for the tracestore tables that
** zSchema holds (called by tracestore_attach() after it made them), and
** drops the views an earlier call made that no longer apply.  On failure
** zSchema's views are as they were and *pzErr holds a message.  Views are
** only made in "temp": SQLite does not let a view stored in another
** database read the store tables (they are SQLITE_VTAB_DIRECTONLY).
** zPath, the session, is for messages.
*/
int tracestoreViewsAttach(sqlite3 *db, const char *zSchema,
                          const char *zPath, char **pzErr);

/* True if zName (any case) is the name of a view tracestoreViewsAttach()
** may make. */
int tracestoreIsViewName(const char *zName);

/* Documentation: the views, rollup tables, store_info, tracestore_args
** and functions (tracestore_doc.c). */
const tracestore_doc_object *tracestoreDocObjects(int *pnObject);

/*
** The schema document: every store's table (from the descriptors compiled
** into TraceStore/TraceSchema.c), store_info, the views and functions.
** Markdown (docs/schema.md) when bMarkdown, else aligned text.  From
** sqlite3_malloc(); 0 when out of memory.
*/
char *tracestoreSchemaText(int bMarkdown);

/* tracestore_schema(['markdown' | 'text']): the SQL function. */
void tracestoreSchemaFunc(sqlite3_context *ctx, int argc,
                          sqlite3_value **argv);

#endif /* TRACER_SQLITE3EXT_TRACESTORE_VIEWS_H */
