/*
** CmdSchema.c: `tracestore schema [--markdown]`: every table, view and SQL
** function with its columns (docs/schema.md is the --markdown output), as the
** extension's tracestore_schema() SQL function reports them.
**
** Zone: hosted (the command-line front end): libc, SQLite's API.  Owns
** the printing of the schema.  Calls SQLite and the extension's public
** header (Sqlite3Ext/tracestore.h) only, and hostFail (HostUtil.c).
*/
#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "Cli/Cli.h"
#include "Sqlite3Ext/tracestore.h"

static const char zSchemaHelp[] =
"usage: tracestore schema [--markdown]\n"
"\n"
"Prints the SQL schema: every store's table (columns, types, flags,\n"
"descriptions), store_info, the views tracestore_attach() creates and the\n"
"SQL functions.  --markdown prints it as docs/schema.md.\n";

int cmdSchema(int argc, char **argv){
  const char *zFormat = "text";
  sqlite3 *db = 0;
  sqlite3_stmt *pStmt = 0;
  char *zErr = 0;
  int i, rc = 1;

  for(i=0; i<argc; i++){
    if( strcmp(argv[i], "--markdown")==0 ){
      zFormat = "markdown";
    }else if( strcmp(argv[i], "--help")==0 || strcmp(argv[i], "-h")==0 ){
      fputs(zSchemaHelp, stdout);
      return 0;
    }else{
      hostFail("schema: unknown argument '%s'", argv[i]);
      fputs(zSchemaHelp, stderr);
      return 2;
    }
  }

  if( sqlite3_open(":memory:", &db)!=SQLITE_OK
   || sqlite3_tracestore_init(db, &zErr, 0)!=SQLITE_OK
   || sqlite3_prepare_v2(db, "SELECT tracestore_schema(?1)", -1, &pStmt,
                         0)!=SQLITE_OK
   || sqlite3_bind_text(pStmt, 1, zFormat, -1, SQLITE_STATIC)!=SQLITE_OK
   || sqlite3_step(pStmt)!=SQLITE_ROW ){
    hostFail("schema: %s", zErr ? zErr : sqlite3_errmsg(db));
    goto end;
  }
  fputs((const char*)sqlite3_column_text(pStmt, 0), stdout);
  rc = fflush(stdout)==0 ? 0 : 1;

end:
  sqlite3_finalize(pStmt);
  sqlite3_free(zErr);
  sqlite3_close(db);
  return rc;
}
