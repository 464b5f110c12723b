/*
** duckdb_host.c: a small DuckDB host for the tests of the tracestore
** DuckDB extension (issue 29): an in-memory database with unsigned
** extensions allowed, on the libduckdb.so it is linked with.
**
** usage: duckdb_host [-t THREADS] SQL...
**   runs each SQL statement in turn; prints each result as CSV (a header,
**   then rows; NULL as empty, values as DuckDB casts them to VARCHAR,
**   quoted as RFC 4180 quotes them).
**   An error: its message on stderr, exit 1.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <duckdb.h>

int main(int argc, char **argv){
  duckdb_database db;
  duckdb_connection con;
  duckdb_config config;
  char *zErr = 0;
  int i = 1, rc = 0;

  if( duckdb_create_config(&config)==DuckDBError
   || duckdb_set_config(config, "allow_unsigned_extensions", "true")
      ==DuckDBError ){
    fprintf(stderr, "duckdb_host: cannot make the configuration\n");
    return 1;
  }
  if( argc>2 && strcmp(argv[1], "-t")==0 ){
    duckdb_set_config(config, "threads", argv[2]);
    i = 3;
  }
  if( duckdb_open_ext(":memory:", &db, config, &zErr)==DuckDBError ){
    fprintf(stderr, "duckdb_host: %s\n", zErr ? zErr : "cannot open");
    return 1;
  }
  duckdb_destroy_config(&config);
  if( duckdb_connect(db, &con)==DuckDBError ){
    fprintf(stderr, "duckdb_host: cannot connect\n");
    return 1;
  }
  for(; i<argc && rc==0; i++){
    duckdb_result res;
    idx_t r, c, nCol, nRow;
    if( duckdb_query(con, argv[i], &res)==DuckDBError ){
      fprintf(stderr, "%s\n", duckdb_result_error(&res));
      rc = 1;
    }else{
      nCol = duckdb_column_count(&res);
      nRow = duckdb_row_count(&res);
      for(c=0; c<nCol; c++){
        printf("%s%s", c ? "," : "", duckdb_column_name(&res, c));
      }
      if( nCol ) printf("\n");
      for(r=0; r<nRow; r++){
        for(c=0; c<nCol; c++){
          char *z = duckdb_value_is_null(&res, c, r) ? 0
                  : duckdb_value_varchar(&res, c, r);
          if( c ) putchar(',');
          if( z && strpbrk(z, ",\"\n\r") ){
            const char *p;
            putchar('"');
            for(p=z; *p; p++){
              if( *p=='"' ) putchar('"');
              putchar(*p);
            }
            putchar('"');
          }else if( z ){
            fputs(z, stdout);
          }
          duckdb_free(z);
        }
        printf("\n");
      }
    }
    duckdb_destroy_result(&res);
  }
  duckdb_disconnect(&con);
  duckdb_close(&db);
  return rc;
}
