/*
** tracestore_duckdb_views.c: the SQLite extension's views, in DuckDB SQL,
** and tracestore_attach(): the stores and views by their bare names.
**
** Zone: hosted (the DuckDB extension): libc, pthreads and DuckDB's C
** extension API; Kernel/KvmExitReason.h (exit reason names) and
** TraceStore/TraceSchema.h (which stores are event stores); the system
** call table generated at build time (tracestore_syscalls.h, as the SQLite
** extension has it); SourceText/SourceLines.h (source_line, as the SQLite
** extension reads it); included by nothing.
** Owns: the view macros, the replacement scan that resolves bare store and
** view names to the attached session or sessions, tracestore_attach(),
** tracestore_attach_sessions(), and the SQL functions
** kvm_exit_reason_name(), syscall_name(), syscall_nr(), source_line().
** Calls: tracestore_scan (through SQL).  Called by DuckDB; registered by
** tracestore_duckdb.c (tsdRegisterViews, tracestore_duckdb_int.h).
**
** Usage:
**
**     SELECT * FROM tracestore_attach('run.trace');   -- what it has
**     SELECT name, count(*) FROM span GROUP BY name;  -- a store
**     SELECT * FROM span_self_time;                   -- a view
**     SELECT * FROM tracestore_span_self_time('other.trace');
**     SELECT * FROM tracestore_attach_sessions('fleet/');
**     SELECT host, count(*) FROM page_fault GROUP BY host;
**
** How it works:
**
**   DuckDB's C API lets an extension neither run SQL while a query binds
**   nor keep the database handle past LOAD, so views cannot be made at
**   attach time.  Instead, at LOAD:
**
**   - each view becomes a table macro of the session path,
**     tracestore_VIEW(SESSION), in the database's default schema, its
**     text that of the SQLite view rewritten for DuckDB (boolean tests
**     instead of integers, IS NOT DISTINCT FROM instead of IS, one type
**     per CASE) over tracestore_scan(SESSION, STORE, missing_ok := true),
**     so a session without a store reads it as empty;
**   - a replacement scan resolves a table name DuckDB does not know: a
**     store name to tracestore_scan(SESSION, NAME), a view name to its
**     macro, for the session tracestore_attach() named last (one per
**     process);
**   - after tracestore_attach_sessions(), a name resolves to DuckDB's
**     query() table function over the UNION ALL BY NAME of each session's
**     store or view, `session` and `host` first (tsdFleetSql), as the
**     SQLite extension's union views read them.
**
**   A view that the SQLite extension answers from the rollups has a macro
**   over tracestore_rollup() (tracestore_duckdb_rollup.c), the one the
**   names resolve to when the session's rollups apply (tsdRollupsApply),
**   and, if it also has SQL over the rows, tracestore_VIEW_rows(SESSION)
**   for a session whose stores have another version's layout.  args (the
**   fields of each ftrace_event's text) reads tracestore_event_args()
**   (tracestore_duckdb_args.c).
*/
#include <duckdb_extension.h>

#include <dirent.h>
#include <glob.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "tracestore_duckdb_int.h"
#include "Kernel/KvmExitReason.h"
#include "TraceStore/TraceSchema.h"
#include "SourceText/SourceLines.h"
#include "tracestore_syscalls.h"    /* aTsSyscall, generated at build time */

DUCKDB_EXTENSION_EXTERN

/*
** What the replacement scan resolves bare names to: the session
** tracestore_attach() named last (zAttached), or the sessions
** tracestore_attach_sessions() found (aFleet, nFleet > 0), or nothing.
*/
typedef struct TsdFleetSession {
  char zName[TRACE_NAME_SIZE + 8];  /* Its directory's last component */
  char zHost[TRACE_NAME_SIZE*2];    /* From its header, "" if none */
  char zPath[TRACE_PATH_SIZE];
  int bRollups;                     /* tsdRollupsApply */
} TsdFleetSession;

static char zAttached[TRACE_PATH_SIZE];
static int bAttachedRollups;
static TsdFleetSession *aFleet;
static int nFleet;
static pthread_mutex_t attachMutex = PTHREAD_MUTEX_INITIALIZER;

/*
** The views.  In a body, {STORE} stands for the rows of STORE of the
** macro's session, {rollup:QUESTION} for tracestore_rollup's answer.  A
** view has its SQL over the rows, over the rollups, or both, as the SQLite
** extension's views have (Sqlite3Ext/tracestore_views.c).  The ORDER BY of
** each is the SQLite view's.
*/
typedef struct TsdView {
  const char *zName;
  const char *zBody;            /* Over the rows, or 0 */
  const char *zRollup;          /* Over the rollups, or 0 */
} TsdView;

/* The kvm_exit_reasons columns after exit_code, named as the kernel
** names raw exit codes. */
#define TSD_KVM_NAMES(reason, code) \
  "CASE WHEN " reason " GLOB '0x*' OR " reason " GLOB '[0-9]*' " \
    "OR " reason " = 'UNKNOWN' " \
    "THEN kvm_exit_reason_name(" code ", 'vmx') END AS vmx_name, " \
  "CASE WHEN " reason " GLOB '0x*' OR " reason " GLOB '[0-9]*' " \
    "OR " reason " = 'UNKNOWN' " \
    "THEN kvm_exit_reason_name(" code ", 'svm') END AS svm_name, "

/* syscall_counts' outer SELECT, over rows (raw, k, n). */
#define TSD_SYSCALL_OUTER \
  "SELECT CASE WHEN raw THEN CAST(k AS BIGINT) ELSE syscall_nr(k) END " \
  "AS id, CASE WHEN raw THEN syscall_name(CAST(k AS BIGINT)) ELSE k END " \
  "AS name, sum(n) AS count "

/* A frame's name as perf report prints it (TS_FRAME_NAME in SQLite):
** its symbol, else 0x and 16 hex digits of its offset or address. */
#define TSD_FRAME_NAME(f) \
  "coalesce(" f ".symbol, '0x' || lpad(lower(to_hex(coalesce(" f \
  ".module_offset, " f ".ip))), 16, '0'))"

/* line_time and line_hot over per_line (name, file, lineno, hits,
** total_dur, self_dur): from the rows, or the line rollup. */
#define TSD_PER_LINE_ROWS \
  "WITH per_line AS (SELECT name, file, lineno, count(*) AS hits, " \
  "CAST(sum(dur) AS BIGINT) AS total_dur, " \
  "CAST(sum(self_dur) AS BIGINT) AS self_dur FROM {line} " \
  "GROUP BY name, file, lineno) "
#define TSD_PER_LINE_ROLLUP \
  "WITH per_line AS (SELECT name, file, lineno, hits, total_dur, self_dur " \
  "FROM {rollup:line}) "
#define TSD_LINE_TIME \
  "SELECT name AS function, file, lineno, hits, total_dur, " \
  "total_dur::DOUBLE / hits AS per_hit, " \
  "round(100.0::DOUBLE * total_dur / nullif(function_dur, 0), 1) " \
  "AS pct_time, self_dur, source_line(file, lineno) AS line_contents " \
  "FROM (SELECT *, sum(total_dur) OVER (PARTITION BY name) AS function_dur, " \
  "min(lineno) OVER (PARTITION BY name) AS first_line FROM per_line) " \
  "ORDER BY file, first_line, function, lineno"
#define TSD_LINE_HOT \
  "SELECT file, lineno, name AS function, hits, self_dur, total_dur, " \
  "round(100.0::DOUBLE * self_dur / nullif(sum(self_dur) OVER (), 0), 1) " \
  "AS pct_self, source_line(file, lineno) AS line_contents " \
  "FROM per_line ORDER BY self_dur DESC, file, lineno, function"

static const TsdView aView[] = {
  { "kvm_exit_reasons",
    "WITH stats AS ("
      "SELECT reason, exit_code, count(*) AS count, "
      "count(*) - count(dur) AS unpaired, sum(dur) AS total_dur, "
      "avg(dur) AS avg_dur, min(dur) AS min_dur, max(dur) AS max_dur "
      "FROM {kvm_exit} GROUP BY reason, exit_code), "
    "ranked AS ("
      "SELECT reason, exit_code, dur, cume_dist() OVER "
      "(PARTITION BY reason, exit_code ORDER BY dur) AS cd "
      "FROM {kvm_exit} WHERE dur IS NOT NULL), "
    "pct AS ("
      "SELECT reason, exit_code, "
      "min(CASE WHEN cd >= 0.50 THEN dur END) AS p50_dur, "
      "min(CASE WHEN cd >= 0.90 THEN dur END) AS p90_dur, "
      "min(CASE WHEN cd >= 0.99 THEN dur END) AS p99_dur "
      "FROM ranked GROUP BY reason, exit_code) "
    "SELECT s.reason AS reason, s.exit_code AS exit_code, "
    TSD_KVM_NAMES("s.reason", "s.exit_code")
    "s.count AS count, s.unpaired AS unpaired, s.total_dur AS total_dur, "
    "s.avg_dur AS avg_dur, s.min_dur AS min_dur, s.max_dur AS max_dur, "
    "p.p50_dur AS p50_dur, p.p90_dur AS p90_dur, p.p99_dur AS p99_dur "
    "FROM stats AS s LEFT JOIN pct AS p ON p.reason IS NOT DISTINCT FROM "
    "s.reason AND p.exit_code IS NOT DISTINCT FROM s.exit_code "
    "ORDER BY s.count DESC, s.reason, s.exit_code",
    "SELECT reason, exit_code, " TSD_KVM_NAMES("reason", "exit_code")
    "count, unpaired, total_dur, avg_dur, min_dur, max_dur, p50_dur, "
    "p90_dur, p99_dur FROM {rollup:kvm_exit} "
    "ORDER BY count DESC, reason, exit_code" },

  { "page_fault_summary",
    "SELECT pid, comm, module, count(*) AS faults, "
    "count(CASE WHEN kind = 'code' THEN 1 END) AS code, "
    "count(CASE WHEN kind = 'data' THEN 1 END) AS data, "
    "count(CASE WHEN access = 'read' THEN 1 END) AS reads, "
    "count(CASE WHEN access = 'write' THEN 1 END) AS writes, "
    "count(CASE WHEN access = 'exec' THEN 1 END) AS execs, "
    "count(CASE WHEN access IS NULL THEN 1 END) AS unknown_access "
    "FROM (SELECT pid, comm, module, "
      "CASE WHEN error_code IS NULL THEN NULL "
      "WHEN (error_code & 16) <> 0 THEN 'exec' "
      "WHEN (error_code & 2) <> 0 THEN 'write' ELSE 'read' END AS access, "
      "CASE WHEN error_code IS NOT NULL THEN "
      "(CASE WHEN (error_code & 16) <> 0 THEN 'code' ELSE 'data' END) "
      "WHEN address IS NULL OR ip IS NULL THEN NULL "
      "WHEN address = ip THEN 'code' ELSE 'data' END AS kind "
      "FROM {page_fault}) "
    "GROUP BY pid, comm, module "
    "ORDER BY faults DESC, pid, comm, module",
    "SELECT pid, comm, module, faults, code, data, reads, writes, execs, "
    "unknown_access FROM {rollup:page_fault} "
    "ORDER BY faults DESC, pid, comm, module" },

  { "page_fault_traffic",
    "SELECT pid, comm, module, count(*) AS faults, "
    "count(CASE WHEN hard = 1 THEN 1 END) AS hard, "
    "count(CASE WHEN hard = 0 THEN 1 END) AS soft, "
    "count(CASE WHEN hard IS NULL THEN 1 END) AS unclassified, "
    "count(CASE WHEN hard = 1 AND is_code = 1 THEN 1 END) AS hard_code, "
    "count(CASE WHEN hard = 1 AND is_code = 0 THEN 1 END) AS hard_data, "
    "count(CASE WHEN hard = 0 AND is_code = 1 THEN 1 END) AS soft_code, "
    "count(CASE WHEN hard = 0 AND is_code = 0 THEN 1 END) AS soft_data "
    "FROM (SELECT pid, comm, module, hard, "
      "CASE WHEN code IS NOT NULL THEN code "
      "WHEN error_code IS NOT NULL THEN "
        "CAST((error_code & 16) <> 0 AS BIGINT) "
      "WHEN address IS NULL OR ip IS NULL THEN NULL "
      "ELSE CAST(address = ip AS BIGINT) END AS is_code "
      "FROM {page_fault}) "
    "GROUP BY pid, comm, module "
    "ORDER BY faults DESC, pid, comm, module",
    "SELECT pid, comm, module, faults, hard, soft, unclassified, hard_code, "
    "hard_data, soft_code, soft_data FROM {rollup:page_fault} "
    "ORDER BY faults DESC, pid, comm, module" },

  { "span_self_time",
    "WITH children AS ("
      "SELECT parent_id, sum(dur) AS child_dur FROM {span} "
      "WHERE parent_id IS NOT NULL GROUP BY parent_id), "
    "by_parent AS ("
      "SELECT p.name AS name, sum(c.child_dur) AS child_dur "
      "FROM children AS c JOIN {span} AS p ON p.id = c.parent_id "
      "GROUP BY p.name), "
    "outermost AS ("
      "SELECT name, sum(dur) AS total_dur FROM ("
        "SELECT name, ts, dur, max(CASE WHEN (flags & 2) <> 0 "
          "THEN CAST(9223372036854775807 AS HUGEINT) "
          "ELSE CAST(ts AS HUGEINT) + coalesce(dur, 0) END) OVER ("
          "PARTITION BY pid, tid, name ORDER BY id "
          "ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS open_until "
        "FROM {span}) "
      "WHERE open_until IS NULL OR ts >= open_until GROUP BY name), "
    "totals AS ("
      "SELECT name, count(*) AS calls, sum(dur) AS all_dur, "
      "avg(dur) AS avg_dur, max(dur) AS max_dur, min(depth) AS min_depth, "
      "max(depth) AS max_depth FROM {span} GROUP BY name) "
    "SELECT t.name AS name, t.calls AS calls, o.total_dur AS total_dur, "
    "t.all_dur - coalesce(b.child_dur, 0) AS self_dur, "
    "t.avg_dur AS avg_dur, t.max_dur AS max_dur, "
    "t.min_depth AS min_depth, t.max_depth AS max_depth "
    "FROM totals AS t LEFT JOIN by_parent AS b ON b.name = t.name "
    "LEFT JOIN outermost AS o ON o.name = t.name "
    "ORDER BY self_dur DESC, name",
    "SELECT name, calls, total_dur, self_dur, avg_dur, max_dur, min_depth, "
    "max_depth FROM {rollup:span} ORDER BY self_dur DESC, name" },

  { "span_running",
    "SELECT * FROM {span} WHERE (flags & 2) <> 0 ORDER BY id", 0 },

  { "syscall_counts",
    TSD_SYSCALL_OUTER "FROM (SELECT name = 'sys_enter' AS raw, "
      "CASE WHEN name = 'sys_enter' "
      "THEN regexp_extract(args, '^NR (-?[0-9]+)', 1) "
      "ELSE substr(name, 11) END AS k, count(*) AS n "
      "FROM {ftrace_event} "
      "WHERE (name = 'sys_enter' AND args GLOB 'NR [0-9-]*') "
      "OR name GLOB 'sys_enter_?*' "
      "GROUP BY 1, 2) "
    "GROUP BY 1, 2 "
    "ORDER BY count DESC, id, name",
    TSD_SYSCALL_OUTER "FROM {rollup:syscall} GROUP BY 1, 2 "
    "ORDER BY count DESC, id, name" },

  { "sample_self",
    "SELECT s.comm AS comm, f.module AS module, " TSD_FRAME_NAME("f")
    " AS symbol, f.kernel AS kernel, count(*) AS samples, "
    "sum(s.period) AS period, "
    "100.0::DOUBLE * sum(s.period) / (SELECT sum(period) FROM {sample}) "
    "AS overhead "
    "FROM {sample} AS s JOIN {stack} AS k ON k.id = s.stack_id "
    "JOIN {frame} AS f ON f.id = k.frame_id "
    "GROUP BY 1, 2, 3, 4 "
    "ORDER BY period DESC, samples DESC, comm, module, symbol", 0 },

  { "sample_flame",
    "WITH RECURSIVE up(callsite, samples, period, self, self_period) AS ("
      "SELECT stack_id, count(*), sum(period), count(*), sum(period) "
      "FROM {sample} WHERE stack_id IS NOT NULL GROUP BY stack_id "
      "UNION ALL "
      "SELECT k.parent_id, up.samples, up.period, 0, 0 "
      "FROM up JOIN {stack} AS k ON k.id = up.callsite "
      "WHERE k.parent_id IS NOT NULL) "
    "SELECT k.id AS id, k.parent_id AS parent_id, k.depth AS depth, "
    "f.module AS module, " TSD_FRAME_NAME("f") " AS name, "
    "f.kernel AS kernel, sum(up.self) AS self, sum(up.samples) AS total, "
    "sum(up.self_period) AS self_period, sum(up.period) AS total_period "
    "FROM up JOIN {stack} AS k ON k.id = up.callsite "
    "JOIN {frame} AS f ON f.id = k.frame_id "
    "GROUP BY k.id, k.parent_id, k.depth, f.module, 5, f.kernel "
    "ORDER BY total DESC, id", 0 },

  { "args",
    "SELECT * FROM tracestore_event_args(session)", 0 },

  { "line_time", TSD_PER_LINE_ROWS TSD_LINE_TIME,
    TSD_PER_LINE_ROLLUP TSD_LINE_TIME },

  { "line_hot", TSD_PER_LINE_ROWS TSD_LINE_HOT,
    TSD_PER_LINE_ROLLUP TSD_LINE_HOT },

  { "event_counts", 0,
    "SELECT store, name, count FROM {rollup:event_count} "
    "ORDER BY count DESC, store, name" },

  { "event_rate", 0,
    "SELECT store, name, ts, dur, count, count * 1e9 / dur AS per_second "
    "FROM {rollup:event_rate} ORDER BY store, name, ts" },
};

#define TSD_N_VIEW ((int)(sizeof(aView)/sizeof(aView[0])))
#define TSD_N_SYSCALL ((int)(sizeof(aTsSyscall)/sizeof(aTsSyscall[0])))

/* ------------------------------------------------------------------------
** A growing string (the macros' text).
*/
typedef struct TsdStr {
  char *z;
  size_t n, nAlloc;
  int bOom;
} TsdStr;

static void tsdAppend(TsdStr *p, const char *z, size_t n){
  if( p->bOom ) return;
  if( p->n + n + 1>p->nAlloc ){
    size_t nNew = (p->nAlloc + n + 1)*2;
    char *zNew = realloc(p->z, nNew);
    if( zNew==0 ){ p->bOom = 1; return; }
    p->z = zNew;
    p->nAlloc = nNew;
  }
  memcpy(p->z + p->n, z, n);
  p->n += n;
  p->z[p->n] = 0;
}

static void tsdAppendZ(TsdStr *p, const char *z){ tsdAppend(p, z, strlen(z)); }

/* z as an SQL string literal. */
static void tsdAppendQuoted(TsdStr *p, const char *z){
  tsdAppend(p, "'", 1);
  for(; *z; z++){
    if( *z=='\'' ) tsdAppend(p, "'", 1);
    tsdAppend(p, z, 1);
  }
  tsdAppend(p, "'", 1);
}

/* zBody with each {STORE} made the rows of STORE of the macro's session,
** each {rollup:QUESTION} its rollup's answer to QUESTION. */
static void tsdAppendBody(TsdStr *p, const char *zBody){
  const char *z = zBody;
  while( *z ){
    const char *zOpen = strchr(z, '{'), *zClose;
    if( zOpen==0 || (zClose = strchr(zOpen, '}'))==0 ){
      tsdAppendZ(p, z);
      return;
    }
    tsdAppend(p, z, (size_t)(zOpen - z));
    if( strncmp(zOpen + 1, "rollup:", 7)==0 ){
      tsdAppendZ(p, "tracestore_rollup(session, '");
      tsdAppend(p, zOpen + 8, (size_t)(zClose - zOpen - 8));
      tsdAppendZ(p, "')");
    }else{
      tsdAppendZ(p, "tracestore_scan(session, '");
      tsdAppend(p, zOpen + 1, (size_t)(zClose - zOpen - 1));
      tsdAppendZ(p, "', missing_ok := true)");
    }
    z = zClose + 1;
  }
}

/* The event view: one arm per event store, as the SQLite view has them. */
static void tsdAppendEventBody(TsdStr *p){
  int i, nArm = 0;
  for(i=0; i<TraceRecordKindMaximum; i++){
    PCTRACE_RECORD_TYPE pType = &TraceRecordTypes[i];
    const char *zStore = pType->Schema->Name;
    const char *azCol[3], *azAs[3] = { "pid", "tid", "cpu" };
    int c;
    if( (pType->Flags & TRACE_RECORD_EVENT)==0 ) continue;
    if( nArm++ ) tsdAppendZ(p, " UNION ALL ");
    tsdAppendZ(p, "SELECT ts AS ts, ");
    if( pType->EventView.Name ){
      tsdAppendZ(p, pType->EventView.Name);
    }else{
      tsdAppendZ(p, "CAST('");
      tsdAppendZ(p, zStore);
      tsdAppendZ(p, "' AS VARCHAR)");
    }
    tsdAppendZ(p, " AS name");
    azCol[0] = pType->EventView.Pid;
    azCol[1] = pType->EventView.Tid;
    azCol[2] = pType->EventView.Cpu;
    for(c=0; c<3; c++){
      tsdAppendZ(p, ", ");
      tsdAppendZ(p, azCol[c] ? azCol[c] : "CAST(NULL AS BIGINT)");
      tsdAppendZ(p, " AS ");
      tsdAppendZ(p, azAs[c]);
    }
    tsdAppendZ(p, ", CAST('");
    tsdAppendZ(p, zStore);
    tsdAppendZ(p, "' AS VARCHAR) AS store, id AS id FROM {");
    tsdAppendZ(p, zStore);
    tsdAppendZ(p, "}");
  }
}

/* Runs zSql on con; 0, or -1 with DuckDB's message in zErr. */
static int tsdExec(duckdb_connection con, const char *zSql, char *zErr,
                   int nErr){
  duckdb_result res;
  int rc = 0;
  if( duckdb_query(con, zSql, &res)==DuckDBError ){
    snprintf(zErr, (size_t)nErr, "%s", duckdb_result_error(&res));
    rc = -1;
  }
  duckdb_destroy_result(&res);
  return rc;
}

/* CREATE OR REPLACE MACRO tracestore_NAME[SUFFIX](session) AS TABLE BODY
** (the event view's body if bEvent). */
static int tsdMakeMacro(duckdb_connection con, const char *zName,
                        const char *zSuffix, const char *zBody, int bEvent,
                        char *zErr, int nErr){
  TsdStr s;
  TsdStr body;
  int rc;
  memset(&s, 0, sizeof(s));
  memset(&body, 0, sizeof(body));
  if( bEvent ) tsdAppendEventBody(&body); else tsdAppendZ(&body, zBody);
  tsdAppendZ(&s, "CREATE OR REPLACE MACRO tracestore_");
  tsdAppendZ(&s, zName);
  tsdAppendZ(&s, zSuffix);
  tsdAppendZ(&s, "(session) AS TABLE ");
  if( !body.bOom ) tsdAppendBody(&s, body.z);
  if( s.bOom || body.bOom ){
    snprintf(zErr, (size_t)nErr, "out of memory");
    rc = -1;
  }else{
    rc = tsdExec(con, s.z, zErr, nErr);
  }
  free(s.z);
  free(body.z);
  return rc;
}

/* ------------------------------------------------------------------------
** The replacement scan and tracestore_attach().
*/

static int tsdIsViewName(const char *zName){
  int i;
  if( strcmp(zName, "event")==0 ) return 1;
  for(i=0; i<TSD_N_VIEW; i++){
    if( strcmp(zName, aView[i].zName)==0 ) return 1;
  }
  return 0;
}

/*
** The macro that answers view zView for a session (bRollups: its rollups
** apply, tsdRollupsApply), into zMacro: the rollup version where there is
** one, else the rows' ("_rows" when it has both).  False if none answers
** (event_counts and event_rate without rollups, as SQLite has no such
** views then).
*/
static int tsdViewMacro(const char *zView, int bRollups, char *zMacro,
                        size_t nMacro){
  int i;
  for(i=0; i<TSD_N_VIEW; i++){
    const TsdView *v = &aView[i];
    if( strcmp(zView, v->zName)!=0 ) continue;
    if( v->zRollup && !bRollups && v->zBody==0 ) return 0;
    snprintf(zMacro, nMacro, "tracestore_%s%s", zView,
             v->zRollup && !bRollups ? "_rows" : "");
    return 1;
  }
  snprintf(zMacro, nMacro, "tracestore_%s", zView);   /* event */
  return 1;
}

static int tsdIsStoreName(const char *zName){
  int i;
  for(i=0; i<TraceRecordKindMaximum; i++){
    if( strcmp(zName, TraceRecordTypes[i].Schema->Name)==0 ) return 1;
  }
  return 0;
}

/*
** The fleet's rows of zTable, as SQL: each session's store (or view, over
** that session alone) with its `session` and `host` first, the arms joined
** by UNION ALL BY NAME, so a column a session lacks reads NULL there.
** The caller holds attachMutex and frees the text.
*/
static char *tsdFleetSql(const char *zTable, int bView){
  TsdStr s;
  int i, nArm = 0;
  memset(&s, 0, sizeof(s));
  for(i=0; i<nFleet; i++){
    const TsdFleetSession *f = &aFleet[i];
    char zMacro[TRACE_NAME_SIZE + 32];
    if( bView && !tsdViewMacro(zTable, f->bRollups, zMacro,
                               sizeof(zMacro)) ){
      continue;
    }
    if( nArm++ ) tsdAppendZ(&s, " UNION ALL BY NAME ");
    tsdAppendZ(&s, "SELECT ");
    tsdAppendQuoted(&s, f->zName);
    tsdAppendZ(&s, " AS session, ");
    if( f->zHost[0] ) tsdAppendQuoted(&s, f->zHost);
    else tsdAppendZ(&s, "CAST(NULL AS VARCHAR)");
    tsdAppendZ(&s, " AS host, * FROM ");
    if( bView ){
      tsdAppendZ(&s, zMacro);
      tsdAppendZ(&s, "(");
      tsdAppendQuoted(&s, f->zPath);
      tsdAppendZ(&s, ")");
    }else{
      tsdAppendZ(&s, "tracestore_scan(");
      tsdAppendQuoted(&s, f->zPath);
      tsdAppendZ(&s, ", ");
      tsdAppendQuoted(&s, zTable);
      tsdAppendZ(&s, ", missing_ok := true)");
    }
  }
  if( s.bOom || nArm==0 ){
    free(s.z);
    return 0;
  }
  return s.z;
}

static void tsdReplaceWith(duckdb_replacement_scan_info info,
                           const char *zFunction, const char *zArg1,
                           const char *zArg2){
  duckdb_value v;
  duckdb_replacement_scan_set_function_name(info, zFunction);
  v = duckdb_create_varchar(zArg1);
  duckdb_replacement_scan_add_parameter(info, v);
  duckdb_destroy_value(&v);
  if( zArg2 ){
    v = duckdb_create_varchar(zArg2);
    duckdb_replacement_scan_add_parameter(info, v);
    duckdb_destroy_value(&v);
  }
}

static void tsdReplace(duckdb_replacement_scan_info info,
                       const char *zTable, void *pData){
  char zSession[TRACE_PATH_SIZE];
  char zMacro[TRACE_NAME_SIZE + 32];
  char *zSql = 0;
  int bView, bStore, bRollups, bFleet;
  (void)pData;
  if( strlen(zTable)>=TRACE_NAME_SIZE ) return;
  bView = tsdIsViewName(zTable);
  bStore = !bView && tsdIsStoreName(zTable);
  if( !bView && !bStore ) return;
  pthread_mutex_lock(&attachMutex);
  memcpy(zSession, zAttached, sizeof(zSession));
  bRollups = bAttachedRollups;
  bFleet = nFleet>0;
  if( bFleet ) zSql = tsdFleetSql(zTable, bView);
  pthread_mutex_unlock(&attachMutex);
  if( bFleet ){
    /* DuckDB's query() table function runs the union. */
    if( zSql ) tsdReplaceWith(info, "query", zSql, 0);
    free(zSql);
  }else if( zSession[0] && bView ){
    if( tsdViewMacro(zTable, bRollups, zMacro, sizeof(zMacro)) ){
      tsdReplaceWith(info, zMacro, zSession, 0);
    }
  }else if( zSession[0] ){
    tsdReplaceWith(info, "tracestore_scan", zSession, zTable);
  }
}

/* tracestore_attach(SESSION): one row (name, kind, rows) per store of the
** session and per view; SESSION becomes the attached session. */
typedef struct TsdAttach {
  int nRow;
  char azName[TRACE_SESSION_MAX_STORES + TSD_N_VIEW + 1][TRACE_NAME_SIZE];
  const char *azKind[TRACE_SESSION_MAX_STORES + TSD_N_VIEW + 1];
  int64_t aRows[TRACE_SESSION_MAX_STORES + TSD_N_VIEW + 1];
  int iNext;
} TsdAttach;

static void tsdAttachBind(duckdb_bind_info info){
  duckdb_value vSession = duckdb_bind_get_parameter(info, 0);
  char *zSession = duckdb_get_varchar(vSession);
  TsdAttach *a = calloc(1, sizeof(TsdAttach));
  PTRACE_SESSION pSession = calloc(1, sizeof(TRACE_SESSION));
  RTL_ERROR err;
  duckdb_logical_type t;
  int bRollups;
  ULONG i;

  duckdb_destroy_value(&vSession);
  memset(&err, 0, sizeof(err));
  if( a==0 || pSession==0 || zSession==0 ){
    duckdb_bind_set_error(info, "tracestore_attach: out of memory");
    goto done;
  }
  if( strlen(zSession)>=TRACE_PATH_SIZE ){
    duckdb_bind_set_error(info, "tracestore_attach: the path is too long");
    goto done;
  }
  if( tsdRtl()==0 || !RTL_SUCCESS(TraceSessionOpenReader(tsdRtl(), zSession,
                                                         pSession, &err)) ){
    duckdb_bind_set_error(info, err.Message);
    free(pSession);
    pSession = 0;
    goto done;
  }
  for(i=0; i<pSession->NumberOfStores; i++){
    PTRACE_STORE pStore = &pSession->Stores[i];
    snprintf(a->azName[a->nRow], TRACE_NAME_SIZE, "%s",
             pStore->Header->Name);
    a->azKind[a->nRow] = "table";
    a->aRows[a->nRow++] = (int64_t)pStore->Snapshot.RecordCount;
  }
  snprintf(a->azName[a->nRow], TRACE_NAME_SIZE, "event");
  a->azKind[a->nRow] = "view";
  a->aRows[a->nRow++] = -1;
  for(i=0; i<(ULONG)TSD_N_VIEW; i++){
    snprintf(a->azName[a->nRow], TRACE_NAME_SIZE, "%s", aView[i].zName);
    a->azKind[a->nRow] = "view";
    a->aRows[a->nRow++] = -1;
  }
  bRollups = tsdRollupsApply(pSession);
  pthread_mutex_lock(&attachMutex);
  memcpy(zAttached, zSession, strlen(zSession) + 1);
  bAttachedRollups = bRollups;
  free(aFleet);
  aFleet = 0;
  nFleet = 0;
  pthread_mutex_unlock(&attachMutex);
  t = duckdb_create_logical_type(DUCKDB_TYPE_VARCHAR);
  duckdb_bind_add_result_column(info, "name", t);
  duckdb_bind_add_result_column(info, "kind", t);
  duckdb_destroy_logical_type(&t);
  t = duckdb_create_logical_type(DUCKDB_TYPE_BIGINT);
  duckdb_bind_add_result_column(info, "rows", t);
  duckdb_destroy_logical_type(&t);
  duckdb_bind_set_bind_data(info, a, free);
  a = 0;
done:
  if( pSession ){
    TraceSessionClose(pSession);
    free(pSession);
  }
  free(a);
  duckdb_free(zSession);
}

static void tsdAttachInit(duckdb_init_info info){ (void)info; }

static void tsdAttachScan(duckdb_function_info info, duckdb_data_chunk out){
  TsdAttach *a = duckdb_function_get_bind_data(info);
  duckdb_vector vName = duckdb_data_chunk_get_vector(out, 0);
  duckdb_vector vKind = duckdb_data_chunk_get_vector(out, 1);
  duckdb_vector vRows = duckdb_data_chunk_get_vector(out, 2);
  int64_t *aRows = duckdb_vector_get_data(vRows);
  idx_t n = 0;
  while( a->iNext<a->nRow && n<duckdb_vector_size() ){
    int i = a->iNext++;
    duckdb_vector_assign_string_element(vName, n, a->azName[i]);
    duckdb_vector_assign_string_element(vKind, n, a->azKind[i]);
    if( a->aRows[i]<0 ){
      duckdb_vector_ensure_validity_writable(vRows);
      duckdb_validity_set_row_invalid(duckdb_vector_get_validity(vRows), n);
    }else{
      aRows[n] = a->aRows[i];
    }
    n++;
  }
  duckdb_data_chunk_set_size(out, n);
}

/* ------------------------------------------------------------------------
** tracestore_attach_sessions(PATH): many sessions read as one.
*/

/* True if zPath is a session directory (it holds session.tracer). */
static int tsdIsSession(const char *zPath){
  char zFile[TRACE_PATH_SIZE + 300];
  struct stat st;
  snprintf(zFile, sizeof(zFile), "%s/session.tracer", zPath);
  return stat(zFile, &st)==0 && S_ISREG(st.st_mode);
}

static int tsdCompareNames(const void *a, const void *b){
  return strcmp(*(char*const*)a, *(char*const*)b);
}

typedef struct TsdPaths {
  char **az;
  int n, nAlloc;
} TsdPaths;

static int tsdPathsAdd(TsdPaths *p, const char *z){
  if( p->n==p->nAlloc ){
    int nNew = p->nAlloc ? p->nAlloc*2 : 16;
    char **azNew = realloc(p->az, sizeof(char*)*(size_t)nNew);
    if( azNew==0 ) return -1;
    p->az = azNew;
    p->nAlloc = nNew;
  }
  if( (p->az[p->n] = strdup(z))==0 ) return -1;
  p->n++;
  return 0;
}

/* Adds zPath if it is a session, else its subdirectories that are, in
** name order.  -1 when out of memory. */
static int tsdCollect(TsdPaths *p, const char *zPath){
  TsdPaths sub;
  DIR *pDir;
  struct dirent *e;
  int i, rc = 0;
  if( tsdIsSession(zPath) ) return tsdPathsAdd(p, zPath);
  if( (pDir = opendir(zPath))==0 ) return 0;
  memset(&sub, 0, sizeof(sub));
  while( rc==0 && (e = readdir(pDir))!=0 ){
    char zSub[TRACE_PATH_SIZE + 256];
    if( e->d_name[0]=='.' ) continue;
    snprintf(zSub, sizeof(zSub), "%s/%s", zPath, e->d_name);
    if( tsdIsSession(zSub) ) rc = tsdPathsAdd(&sub, zSub);
  }
  closedir(pDir);
  if( sub.n ) qsort(sub.az, (size_t)sub.n, sizeof(char*), tsdCompareNames);
  for(i=0; i<sub.n; i++){
    if( rc==0 ) rc = tsdPathsAdd(p, sub.az[i]);
    free(sub.az[i]);
  }
  free(sub.az);
  return rc;
}

/* The name of session i: its directory's last component, "_2", "_3", ...
** after a name an earlier session took (as the SQLite extension names
** its schemas). */
static void tsdFleetName(TsdFleetSession *a, int i){
  const char *zPath = a[i].zPath, *zBase;
  size_t n = strlen(zPath);
  int k, j, bTaken;
  while( n>1 && zPath[n-1]=='/' ) n--;
  zBase = zPath + n;
  while( zBase>zPath && zBase[-1]!='/' ) zBase--;
  n = (size_t)(zPath + n - zBase);
  if( n>TRACE_NAME_SIZE ) n = TRACE_NAME_SIZE;
  for(k=1; ; k++){
    if( k==1 ){
      snprintf(a[i].zName, sizeof(a[i].zName), "%.*s", (int)n, zBase);
    }else{
      snprintf(a[i].zName, sizeof(a[i].zName), "%.*s_%d", (int)n, zBase, k);
    }
    bTaken = strcasecmp(a[i].zName, "main")==0
          || strcasecmp(a[i].zName, "temp")==0;
    for(j=0; j<i && !bTaken; j++){
      bTaken = strcasecmp(a[j].zName, a[i].zName)==0;
    }
    if( !bTaken ) break;
  }
}

typedef struct TsdFleetRows {
  TsdFleetSession *a;
  int n, iNext;
} TsdFleetRows;

static void tsdFleetRowsFree(void *p){
  TsdFleetRows *r = (TsdFleetRows*)p;
  if( r ) free(r->a);
  free(r);
}

/*
** tracestore_attach_sessions(PATH): PATH is a session, a directory of
** sessions, or a glob(3) pattern of either ('runs/run-?.trace').  Each
** session is opened (to check it and read its host) before anything
** changes; then the bare names read every session's rows.
*/
static void tsdFleetBind(duckdb_bind_info info){
  duckdb_value vPath = duckdb_bind_get_parameter(info, 0);
  char *zArg = duckdb_get_varchar(vPath);
  TsdFleetRows *r = calloc(1, sizeof(TsdFleetRows));
  TsdPaths paths;
  glob_t g;
  char zMsg[TRACE_PATH_SIZE + 600];
  duckdb_logical_type t;
  int i, rc = 0;
  size_t k;

  duckdb_destroy_value(&vPath);
  memset(&paths, 0, sizeof(paths));
  memset(&g, 0, sizeof(g));
  if( r==0 || zArg==0 ){
    duckdb_bind_set_error(info, "tracestore_attach_sessions: out of memory");
    goto done;
  }
  if( glob(zArg, GLOB_NOCHECK, 0, &g)!=0 ){
    duckdb_bind_set_error(info, "tracestore_attach_sessions: out of memory");
    goto done;
  }
  for(k=0; k<g.gl_pathc && rc==0; k++) rc = tsdCollect(&paths, g.gl_pathv[k]);
  if( rc==0 && paths.n==0 ){
    snprintf(zMsg, sizeof(zMsg), "tracestore_attach_sessions: '%s' is "
             "neither a trace session nor a directory or pattern of "
             "sessions", zArg);
    duckdb_bind_set_error(info, zMsg);
    goto done;
  }
  r->a = calloc((size_t)paths.n + 1, sizeof(TsdFleetSession));
  if( rc || r->a==0 ){
    duckdb_bind_set_error(info, "tracestore_attach_sessions: out of memory");
    goto done;
  }
  for(i=0; i<paths.n; i++){
    PTRACE_SESSION pSession = calloc(1, sizeof(TRACE_SESSION));
    RTL_ERROR err;
    memset(&err, 0, sizeof(err));
    if( strlen(paths.az[i])>=TRACE_PATH_SIZE || pSession==0
     || tsdRtl()==0
     || !RTL_SUCCESS(TraceSessionOpenReader(tsdRtl(), paths.az[i],
                                            pSession, &err)) ){
      snprintf(zMsg, sizeof(zMsg), "tracestore_attach_sessions: %s",
               err.Message[0] ? err.Message : "cannot open a session");
      duckdb_bind_set_error(info, zMsg);
      free(pSession);
      goto done;
    }
    snprintf(r->a[i].zPath, sizeof(r->a[i].zPath), "%s", paths.az[i]);
    snprintf(r->a[i].zHost, sizeof(r->a[i].zHost), "%.*s",
             (int)sizeof(pSession->Header.Host.HostName),
             pSession->Header.Host.HostName);
    r->a[i].bRollups = tsdRollupsApply(pSession);
    TraceSessionClose(pSession);
    free(pSession);
    tsdFleetName(r->a, i);
  }
  r->n = paths.n;

  /* Everything opened: the bare names read these sessions now. */
  {
    TsdFleetSession *aCopy = malloc(sizeof(TsdFleetSession)*(size_t)r->n);
    if( aCopy==0 ){
      duckdb_bind_set_error(info, "tracestore_attach_sessions: out of "
                            "memory");
      goto done;
    }
    memcpy(aCopy, r->a, sizeof(TsdFleetSession)*(size_t)r->n);
    pthread_mutex_lock(&attachMutex);
    free(aFleet);
    aFleet = aCopy;
    nFleet = r->n;
    zAttached[0] = 0;
    pthread_mutex_unlock(&attachMutex);
  }
  t = duckdb_create_logical_type(DUCKDB_TYPE_VARCHAR);
  duckdb_bind_add_result_column(info, "session", t);
  duckdb_bind_add_result_column(info, "host", t);
  duckdb_bind_add_result_column(info, "path", t);
  duckdb_destroy_logical_type(&t);
  duckdb_bind_set_bind_data(info, r, tsdFleetRowsFree);
  r = 0;
done:
  for(i=0; i<paths.n; i++) free(paths.az[i]);
  free(paths.az);
  globfree(&g);
  tsdFleetRowsFree(r);
  duckdb_free(zArg);
}

static void tsdFleetScan(duckdb_function_info info, duckdb_data_chunk out){
  TsdFleetRows *r = duckdb_function_get_bind_data(info);
  duckdb_vector vHost = duckdb_data_chunk_get_vector(out, 1);
  idx_t n = 0;
  while( r->iNext<r->n && n<duckdb_vector_size() ){
    const TsdFleetSession *f = &r->a[r->iNext++];
    duckdb_vector_assign_string_element(duckdb_data_chunk_get_vector(out, 0),
                                        n, f->zName);
    if( f->zHost[0] ){
      duckdb_vector_assign_string_element(vHost, n, f->zHost);
    }else{
      duckdb_vector_ensure_validity_writable(vHost);
      duckdb_validity_set_row_invalid(duckdb_vector_get_validity(vHost), n);
    }
    duckdb_vector_assign_string_element(duckdb_data_chunk_get_vector(out, 2),
                                        n, f->zPath);
    n++;
  }
  duckdb_data_chunk_set_size(out, n);
}

/* ------------------------------------------------------------------------
** SQL functions (the SQLite extension's, for the views).
*/

/* kvm_exit_reason_name(EXIT_CODE BIGINT, ISA VARCHAR). */
static void tsdKvmNameFunc(duckdb_function_info info, duckdb_data_chunk in,
                           duckdb_vector out){
  idx_t n = duckdb_data_chunk_get_size(in), k;
  duckdb_vector vCode = duckdb_data_chunk_get_vector(in, 0);
  duckdb_vector vIsa = duckdb_data_chunk_get_vector(in, 1);
  const int64_t *aCode = duckdb_vector_get_data(vCode);
  const duckdb_string_t *aIsa = duckdb_vector_get_data(vIsa);
  uint64_t *aCodeValid = duckdb_vector_get_validity(vCode);
  uint64_t *aIsaValid = duckdb_vector_get_validity(vIsa);
  uint64_t *aOutValid;
  (void)info;
  duckdb_vector_ensure_validity_writable(out);
  aOutValid = duckdb_vector_get_validity(out);
  for(k=0; k<n; k++){
    const char *zName = 0;
    unsigned isa = 0;
    if( duckdb_validity_row_is_valid(aCodeValid, k)
     && duckdb_validity_row_is_valid(aIsaValid, k) ){
      duckdb_string_t s = aIsa[k];
      const char *z = duckdb_string_is_inlined(s) ? s.value.inlined.inlined
                                                  : s.value.pointer.ptr;
      uint32_t nz = duckdb_string_t_length(s);
      if( nz==3 && strncasecmp(z, "vmx", 3)==0 ) isa = KVM_EXIT_ISA_VMX;
      if( nz==3 && strncasecmp(z, "svm", 3)==0 ) isa = KVM_EXIT_ISA_SVM;
      if( isa && aCode[k]>=0 && aCode[k]<=0xffffffffLL ){
        zName = KvmExitReasonName(isa, (unsigned)aCode[k],
                                  KvmExitNamesKernel);
      }
    }
    if( zName==0 ){
      duckdb_validity_set_row_invalid(aOutValid, k);
    }else if( isa==KVM_EXIT_ISA_VMX
           && (aCode[k] & KVM_EXIT_VMX_FAILED_VMENTRY)!=0 ){
      char zBuf[128];
      snprintf(zBuf, sizeof(zBuf), "%s FAILED_VMENTRY", zName);
      duckdb_vector_assign_string_element(out, k, zBuf);
    }else{
      duckdb_vector_assign_string_element(out, k, zName);
    }
  }
}

/* syscall_name(NR BIGINT). */
static void tsdSyscallNameFunc(duckdb_function_info info,
                               duckdb_data_chunk in, duckdb_vector out){
  idx_t n = duckdb_data_chunk_get_size(in), k;
  duckdb_vector vNr = duckdb_data_chunk_get_vector(in, 0);
  const int64_t *aNr = duckdb_vector_get_data(vNr);
  uint64_t *aValid = duckdb_vector_get_validity(vNr);
  uint64_t *aOutValid;
  (void)info;
  duckdb_vector_ensure_validity_writable(out);
  aOutValid = duckdb_vector_get_validity(out);
  for(k=0; k<n; k++){
    int i, bFound = 0;
    if( duckdb_validity_row_is_valid(aValid, k) ){
      for(i=0; i<TSD_N_SYSCALL; i++){
        if( aTsSyscall[i].nr==aNr[k] ){
          duckdb_vector_assign_string_element(out, k, aTsSyscall[i].zName);
          bFound = 1;
          break;
        }
      }
    }
    if( !bFound ) duckdb_validity_set_row_invalid(aOutValid, k);
  }
}

/* syscall_nr(NAME VARCHAR). */
static void tsdSyscallNrFunc(duckdb_function_info info, duckdb_data_chunk in,
                             duckdb_vector out){
  idx_t n = duckdb_data_chunk_get_size(in), k;
  duckdb_vector vName = duckdb_data_chunk_get_vector(in, 0);
  const duckdb_string_t *aName = duckdb_vector_get_data(vName);
  uint64_t *aValid = duckdb_vector_get_validity(vName);
  int64_t *aOut = duckdb_vector_get_data(out);
  uint64_t *aOutValid;
  (void)info;
  duckdb_vector_ensure_validity_writable(out);
  aOutValid = duckdb_vector_get_validity(out);
  for(k=0; k<n; k++){
    int i, bFound = 0;
    if( duckdb_validity_row_is_valid(aValid, k) ){
      duckdb_string_t s = aName[k];
      const char *z = duckdb_string_is_inlined(s) ? s.value.inlined.inlined
                                                  : s.value.pointer.ptr;
      uint32_t nz = duckdb_string_t_length(s);
      for(i=0; i<TSD_N_SYSCALL; i++){
        if( strlen(aTsSyscall[i].zName)==nz
         && memcmp(aTsSyscall[i].zName, z, nz)==0 ){
          aOut[k] = aTsSyscall[i].nr;
          bFound = 1;
          break;
        }
      }
    }
    if( !bFound ) duckdb_validity_set_row_invalid(aOutValid, k);
  }
}

/*
** source_line(FILE VARCHAR, LINENO BIGINT): the SQLite extension's, read
** through one cache for the process (DuckDB calls scalar functions from
** its threads at once: the cache is locked while a chunk is read).
*/
static SourceCache *pSourceCache;
static pthread_mutex_t sourceMutex = PTHREAD_MUTEX_INITIALIZER;

static void tsdSourceLineFunc(duckdb_function_info info, duckdb_data_chunk in,
                              duckdb_vector out){
  idx_t n = duckdb_data_chunk_get_size(in), k;
  duckdb_vector vFile = duckdb_data_chunk_get_vector(in, 0);
  duckdb_vector vLine = duckdb_data_chunk_get_vector(in, 1);
  const duckdb_string_t *aFile = duckdb_vector_get_data(vFile);
  const int64_t *aLine = duckdb_vector_get_data(vLine);
  uint64_t *aFileValid = duckdb_vector_get_validity(vFile);
  uint64_t *aLineValid = duckdb_vector_get_validity(vLine);
  uint64_t *aOutValid;
  int bOom = 0;
  duckdb_vector_ensure_validity_writable(out);
  aOutValid = duckdb_vector_get_validity(out);
  pthread_mutex_lock(&sourceMutex);
  if( pSourceCache==0 ) pSourceCache = sourceCacheNew();
  for(k=0; k<n; k++){
    const char *zLine = 0;
    size_t nLine = 0;
    int rc = 0;
    if( pSourceCache && duckdb_validity_row_is_valid(aFileValid, k)
     && duckdb_validity_row_is_valid(aLineValid, k) ){
      duckdb_string_t s = aFile[k];
      const char *z = duckdb_string_is_inlined(s) ? s.value.inlined.inlined
                                                  : s.value.pointer.ptr;
      uint32_t nz = duckdb_string_t_length(s);
      char zPath[4096];
      if( nz<sizeof(zPath) && memchr(z, 0, nz)==0 ){
        memcpy(zPath, z, nz);
        zPath[nz] = 0;
        rc = sourceLine(pSourceCache, zPath, aLine[k], &zLine, &nLine);
      }
    }
    if( rc==1 ){
      duckdb_vector_assign_string_element_len(out, k, zLine, nLine);
    }else{
      duckdb_validity_set_row_invalid(aOutValid, k);
      bOom |= (rc<0 || pSourceCache==0);
    }
  }
  pthread_mutex_unlock(&sourceMutex);
  if( bOom ){
    duckdb_scalar_function_set_error(info, "source_line: out of memory");
  }
}

/* Registers scalar function zName(aArg...) -> ret. */
static int tsdScalar(duckdb_connection con, const char *zName, int nArg,
                     const duckdb_type *aArg, duckdb_type ret,
                     duckdb_scalar_function_t xFunc){
  duckdb_scalar_function f = duckdb_create_scalar_function();
  duckdb_logical_type t;
  duckdb_state rc;
  int i;
  duckdb_scalar_function_set_name(f, zName);
  for(i=0; i<nArg; i++){
    t = duckdb_create_logical_type(aArg[i]);
    duckdb_scalar_function_add_parameter(f, t);
    duckdb_destroy_logical_type(&t);
  }
  t = duckdb_create_logical_type(ret);
  duckdb_scalar_function_set_return_type(f, t);
  duckdb_destroy_logical_type(&t);
  duckdb_scalar_function_set_function(f, xFunc);
  rc = duckdb_register_scalar_function(con, f);
  duckdb_destroy_scalar_function(&f);
  return rc==DuckDBError ? -1 : 0;
}

/* Registers table function zName(VARCHAR), its rows made at bind. */
static int tsdTableOfOne(duckdb_connection con, const char *zName,
                         duckdb_table_function_bind_t xBind,
                         duckdb_table_function_t xScan){
  duckdb_table_function f = duckdb_create_table_function();
  duckdb_logical_type t = duckdb_create_logical_type(DUCKDB_TYPE_VARCHAR);
  duckdb_state rc;
  duckdb_table_function_set_name(f, zName);
  duckdb_table_function_add_parameter(f, t);
  duckdb_destroy_logical_type(&t);
  duckdb_table_function_set_bind(f, xBind);
  duckdb_table_function_set_init(f, tsdAttachInit);
  duckdb_table_function_set_function(f, xScan);
  rc = duckdb_register_table_function(con, f);
  duckdb_destroy_table_function(&f);
  return rc==DuckDBError ? -1 : 0;
}

int tsdRegisterViews(duckdb_connection con, duckdb_database db, char *zErr,
                     int nErr){
  static const duckdb_type aKvm[2] = { DUCKDB_TYPE_BIGINT,
                                       DUCKDB_TYPE_VARCHAR };
  static const duckdb_type aNr[1] = { DUCKDB_TYPE_BIGINT };
  static const duckdb_type aName[1] = { DUCKDB_TYPE_VARCHAR };
  static const duckdb_type aSource[2] = { DUCKDB_TYPE_VARCHAR,
                                          DUCKDB_TYPE_BIGINT };
  int i;

  if( tsdScalar(con, "kvm_exit_reason_name", 2, aKvm, DUCKDB_TYPE_VARCHAR,
                tsdKvmNameFunc)
   || tsdScalar(con, "syscall_name", 1, aNr, DUCKDB_TYPE_VARCHAR,
                tsdSyscallNameFunc)
   || tsdScalar(con, "syscall_nr", 1, aName, DUCKDB_TYPE_BIGINT,
                tsdSyscallNrFunc)
   || tsdScalar(con, "source_line", 2, aSource, DUCKDB_TYPE_VARCHAR,
                tsdSourceLineFunc) ){
    snprintf(zErr, (size_t)nErr, "cannot register the SQL functions");
    return -1;
  }
  if( tsdTableOfOne(con, "tracestore_attach", tsdAttachBind, tsdAttachScan)
   || tsdTableOfOne(con, "tracestore_attach_sessions", tsdFleetBind,
                    tsdFleetScan) ){
    snprintf(zErr, (size_t)nErr, "cannot register tracestore_attach");
    return -1;
  }
  duckdb_add_replacement_scan(db, tsdReplace, 0, 0);
  /* The macros last: a read-only database cannot take them, and the rest
  ** works without them. */
  if( tsdMakeMacro(con, "event", "", 0, 1, zErr, nErr) ) return 1;
  for(i=0; i<TSD_N_VIEW; i++){
    const TsdView *v = &aView[i];
    if( (v->zRollup && tsdMakeMacro(con, v->zName, "", v->zRollup, 0, zErr,
                                    nErr))
     || (v->zBody && tsdMakeMacro(con, v->zName, v->zRollup ? "_rows" : "",
                                  v->zBody, 0, zErr, nErr)) ){
      return 1;
    }
  }
  return 0;
}
