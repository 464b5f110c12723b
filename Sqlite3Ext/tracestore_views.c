/*
** tracestore_views.c: the views tracestore_attach() creates over the store
** tables, and the SQL functions they use.
**
** Zone: hosted (the SQLite extension): libc and SQLite's API, and
** Kernel/KvmExitReason.h (exit reason names) and TraceSchema.h (the
** record types: which stores are event stores and how `event` reads
** them); it opens no session;
** included by nothing outside Sqlite3Ext/.
** Owns: the text of each view and when it applies, the SQL functions
** kvm_exit_reason_name(), syscall_name() and syscall_nr() (the system
** call table is generated at build time by GenerateSyscalls.cmake).
** Calls: tracestore_catalog.c.  Called by tracestore_attach.c
** (tracestoreViewsAttach) and tracestore_fleet.c; declared in
** tracestore_views.h.
**
** Usage:
**
**     SELECT tracestore_attach('run.trace');
**     SELECT * FROM event ORDER BY ts LIMIT 20;      -- what happened
**     SELECT * FROM kvm_exit_reasons;                -- exit histogram
**     SELECT * FROM page_fault_summary;              -- faults per process
**     SELECT * FROM span_self_time;                  -- flame-graph table
**     SELECT * FROM syscall_counts;                  -- seeds/003's script
**     SELECT * FROM args WHERE arg_set_id = 42;      -- an event's fields
**     SELECT kvm_exit_reason_name(48, 'vmx');        -- EPT_VIOLATION
**     SELECT syscall_name(59), syscall_nr('openat'); -- execve, 257
**
**   The views, their columns and the rules behind them are documented in
**   tracestore_doc.c, from which docs/schema.md is generated: a view's
**   change here is a change there.
**
** How it works:
**
**   After tracestore_attach(PATH, SCHEMA) has made the store tables, it
**   calls tracestoreViewsAttach(), which looks at the tracestore tables
**   SCHEMA holds and makes each view whose stores are there, in that same
**   schema, with the same rules as for the tables: a view of that name
**   made by an earlier attach is kept when its text is the same and
**   replaced when not, one whose stores are gone is dropped, and a name
**   taken by anything else (a table or view of the user's) is an error
**   before anything changes.  A failure undoes what the call did.  The
**   views are recognized by the comment after AS in their text.
**
**   Views are only made in "temp" (the default schema of the attach): a
**   view stored in another database may not read the store tables, which
**   are SQLITE_VTAB_DIRECTONLY so that a database file cannot make the
**   extension open files; in another schema, query the tables directly.
**
**   The views read the tables by their bare names, which a temp view
**   resolves in temp first.  Aggregates are written so that memory does not
**   grow with the number of rows beyond what SQLite's sorter uses (it spills
**   to temporary files): one GROUP BY or window per pass, and joins of
**   small grouped results or rowid look-ups, never a correlated subquery
**   per row.
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3

#include <string.h>

#include "tracestore_views.h"
#include "tracestore_int.h"
#include "Kernel/KvmExitReason.h"
#include "TraceStore/TraceSchema.h"   /* TraceRecordTypes: the stores */
#include "tracestore_syscalls.h"    /* aTsSyscall, generated at build time */

/* Marks the views this file makes (the text after "AS"). */
#define TS_VIEW_MARK "/* tracestore view */"

/* -------------------------------------------------------------------------
** SQL functions.
*/

/*
** Sets *piValue to the integer pVal holds (an INTEGER, a REAL without a
** fraction, or text that reads as one of those).  False otherwise.
*/
int tsIntegerArg(sqlite3_value *pVal, sqlite3_int64 *piValue){
  double r;
  switch( sqlite3_value_numeric_type(pVal) ){
    case SQLITE_INTEGER:
      *piValue = sqlite3_value_int64(pVal);
      return 1;
    case SQLITE_FLOAT:
      r = sqlite3_value_double(pVal);
      if( r>=-9.2e18 && r<=9.2e18 && r==(double)(sqlite3_int64)r ){
        *piValue = (sqlite3_int64)r;
        return 1;
      }
      return 0;
  }
  return 0;
}

/*
** kvm_exit_reason_name(EXIT_CODE, ISA): the kernel's name of a VMX or SVM
** exit code.  ISA is 'vmx' or 'svm' (any case) or the kvm_exit
** tracepoint's isa number (1 VMX, 2 SVM).
*/
static void tsKvmExitReasonNameFunc(
  sqlite3_context *ctx,
  int argc,
  sqlite3_value **argv
){
  sqlite3_int64 iCode;
  unsigned int isa = 0;
  const char *zName;
  (void)argc;
  if( sqlite3_value_type(argv[1])==SQLITE_INTEGER ){
    sqlite3_int64 i = sqlite3_value_int64(argv[1]);
    if( i==KVM_EXIT_ISA_VMX || i==KVM_EXIT_ISA_SVM ) isa = (unsigned)i;
  }else if( sqlite3_value_type(argv[1])==SQLITE_TEXT ){
    const char *z = (const char*)sqlite3_value_text(argv[1]);
    if( z && sqlite3_stricmp(z, "vmx")==0 ) isa = KVM_EXIT_ISA_VMX;
    if( z && sqlite3_stricmp(z, "svm")==0 ) isa = KVM_EXIT_ISA_SVM;
  }else if( sqlite3_value_type(argv[1])==SQLITE_NULL ){
    return;
  }
  if( isa==0 ){
    sqlite3_result_error(ctx, "kvm_exit_reason_name(EXIT_CODE, ISA): ISA "
                         "must be 'vmx' or 'svm' (or 1 or 2)", -1);
    return;
  }
  if( !tsIntegerArg(argv[0], &iCode) ) return;
  if( iCode<0 || iCode>0xffffffffLL ) return;
  zName = KvmExitReasonName(isa, (unsigned)iCode, KvmExitNamesKernel);
  if( zName==0 ) return;
  if( isa==KVM_EXIT_ISA_VMX && (iCode & KVM_EXIT_VMX_FAILED_VMENTRY)!=0 ){
    sqlite3_result_text(ctx, sqlite3_mprintf("%s FAILED_VMENTRY", zName),
                        -1, sqlite3_free);
  }else{
    sqlite3_result_text(ctx, zName, -1, SQLITE_STATIC);
  }
}

#define TS_N_SYSCALL ((int)(sizeof(aTsSyscall)/sizeof(aTsSyscall[0])))

/* syscall_name(NR): the x86-64 name of system call NR, or NULL. */
static void tsSyscallNameFunc(
  sqlite3_context *ctx,
  int argc,
  sqlite3_value **argv
){
  sqlite3_int64 nr;
  int i;
  (void)argc;
  if( !tsIntegerArg(argv[0], &nr) ) return;
  for(i=0; i<TS_N_SYSCALL; i++){
    if( aTsSyscall[i].nr==nr ){
      sqlite3_result_text(ctx, aTsSyscall[i].zName, -1, SQLITE_STATIC);
      return;
    }
  }
}

/* syscall_nr(NAME): the x86-64 number of system call NAME, or NULL. */
static void tsSyscallNrFunc(
  sqlite3_context *ctx,
  int argc,
  sqlite3_value **argv
){
  const char *z = (const char*)sqlite3_value_text(argv[0]);
  int i;
  (void)argc;
  if( z==0 ) return;
  for(i=0; i<TS_N_SYSCALL; i++){
    if( strcmp(aTsSyscall[i].zName, z)==0 ){
      sqlite3_result_int(ctx, aTsSyscall[i].nr);
      return;
    }
  }
}

int tracestoreViewsInit(sqlite3 *db){
  const int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
  int rc;
  rc = sqlite3_create_function_v2(db, "kvm_exit_reason_name", 2, flags, 0,
                                  tsKvmExitReasonNameFunc, 0, 0, 0);
  if( rc==SQLITE_OK ){
    rc = sqlite3_create_function_v2(db, "syscall_name", 1, flags, 0,
                                    tsSyscallNameFunc, 0, 0, 0);
  }
  if( rc==SQLITE_OK ){
    rc = sqlite3_create_function_v2(db, "syscall_nr", 1, flags, 0,
                                    tsSyscallNrFunc, 0, 0, 0);
  }
  return rc;
}

/* -------------------------------------------------------------------------
** The views.
*/

/* Bits of the stores a schema has tables for: 1 << the record type's kind
** (TRACE_RECORD_KIND, TraceStore/TraceSchema.h). */
#define TS_HAS(kind)         (1 << (kind))
#define TS_HAS_PAGE_FAULT    TS_HAS(TraceRecordPageFault)
#define TS_HAS_KVM_EXIT      TS_HAS(TraceRecordKvmExit)
#define TS_HAS_FTRACE_EVENT  TS_HAS(TraceRecordFtraceEvent)
#define TS_HAS_SPAN          TS_HAS(TraceRecordSpan)
#define TS_HAS_LINE          TS_HAS(TraceRecordLine)
#define TS_HAS_STACKS        (TS_HAS(TraceRecordSample) | \
                              TS_HAS(TraceRecordStack) | \
                              TS_HAS(TraceRecordFrame))
/* Not a store: page_fault has issue 15's columns (hard, code, ...), which
** stores written before it lack. */
#define TS_HAS_FAULT_CLASSES (1 << 30)
/* Not stores: the rollup tables (tracestore_rollup.c), which the views
** read where the session has them (stores of this version's layout). */
#define TS_HAS_RU_SPAN       (1 << 20)
#define TS_HAS_RU_SPAN_OPEN  (1 << 21)
#define TS_HAS_RU_FAULT      (1 << 22)
#define TS_HAS_RU_KVM        (1 << 23)
#define TS_HAS_RU_SYSCALL    (1 << 24)
#define TS_HAS_RU_EVENT      (1 << 25)
#define TS_HAS_RU_LINE       (1 << 26)

static const struct {
  const char *zTable;
  int mask;
} aTsRollupTable[] = {
  { "rollup_span", TS_HAS_RU_SPAN },
  { "rollup_span_open", TS_HAS_RU_SPAN_OPEN },
  { "rollup_page_fault", TS_HAS_RU_FAULT },
  { "rollup_kvm_exit", TS_HAS_RU_KVM },
  { "rollup_syscall", TS_HAS_RU_SYSCALL },
  { "rollup_event_count", TS_HAS_RU_EVENT },
  { "rollup_event_rate", TS_HAS_RU_EVENT },
  { "rollup_line", TS_HAS_RU_LINE },
};

/*
** event: one arm per event store (TRACE_RECORD_EVENT), in the order of
** the kinds, each the SELECT of (ts, name, pid, tid, cpu, store, id) for
** that store, read as its TRACE_EVENT_VIEW says.  Every column has the
** same affinity in every arm (hence the CASTs of constants): SQLite then
** flattens the view into the query, so that ORDER BY ts becomes a merge
** of the arms and a ts range reaches each table.
*/
static void tsAppendEventArm(sqlite3_str *p, PCTRACE_RECORD_TYPE pType){
  const char *zStore = pType->Schema->Name;
  const TRACE_EVENT_VIEW *pView = &pType->EventView;
  const char *azCol[3];
  const char *azAs[3] = { "pid", "tid", "cpu" };
  int i;
  azCol[0] = pView->Pid;
  azCol[1] = pView->Tid;
  azCol[2] = pView->Cpu;
  if( pView->Name ){
    sqlite3_str_appendf(p, "SELECT ts AS ts, %s AS name", pView->Name);
  }else{
    sqlite3_str_appendf(p, "SELECT ts AS ts, CAST('%s' AS TEXT) AS name",
                        zStore);
  }
  for(i=0; i<3; i++){
    if( azCol[i] ){
      sqlite3_str_appendf(p, ", %s AS %s", azCol[i], azAs[i]);
    }else{
      sqlite3_str_appendf(p, ", CAST(NULL AS INTEGER) AS %s", azAs[i]);
    }
  }
  sqlite3_str_appendf(p, ", CAST('%s' AS TEXT) AS store, id AS id FROM %s",
                      zStore, zStore);
}

static const char zTsArgsView[] =
  "SELECT e.id AS arg_set_id, a.key AS key, a.int_value AS int_value, "
  "a.string_value AS string_value, a.value_type AS value_type, "
  "a.display_value AS display_value "
  "FROM ftrace_event AS e, tracestore_args(e.args) AS a";

/*
** Percentiles by nearest rank: pN is the smallest dur with at least N% of
** the group's durs at or below it, i.e. the least dur whose cume_dist() is
** >= N/100.  cume_dist() is k/n (k rows at or below, n rows) rounded once
** to a double, and so is the literal N/100: rounding keeps k/n >= N/100
** true, and k/n < N/100 cannot round up to it while n < 9e13 (the gap,
** at least 1/(100n), is then wider than the doubles' spacing near 1).
*/
static const char zTsKvmExitReasonsView[] =
  "WITH stats AS ("
    "SELECT reason, exit_code, count(*) AS count, "
    "count(*) - count(dur) AS unpaired, sum(dur) AS total_dur, "
    "avg(dur) AS avg_dur, min(dur) AS min_dur, max(dur) AS max_dur "
    "FROM kvm_exit GROUP BY reason, exit_code), "
  "ranked AS ("
    "SELECT reason, exit_code, dur, cume_dist() OVER "
    "(PARTITION BY reason, exit_code ORDER BY dur) AS cd "
    "FROM kvm_exit WHERE dur IS NOT NULL), "
  "pct AS ("
    "SELECT reason, exit_code, "
    "min(CASE WHEN cd >= 0.50 THEN dur END) AS p50_dur, "
    "min(CASE WHEN cd >= 0.90 THEN dur END) AS p90_dur, "
    "min(CASE WHEN cd >= 0.99 THEN dur END) AS p99_dur "
    "FROM ranked GROUP BY reason, exit_code) "
  "SELECT s.reason AS reason, s.exit_code AS exit_code, "
  "CASE WHEN s.reason GLOB '0x*' OR s.reason GLOB '[0-9]*' "
    "OR s.reason = 'UNKNOWN' "
    "THEN kvm_exit_reason_name(s.exit_code, 'vmx') END AS vmx_name, "
  "CASE WHEN s.reason GLOB '0x*' OR s.reason GLOB '[0-9]*' "
    "OR s.reason = 'UNKNOWN' "
    "THEN kvm_exit_reason_name(s.exit_code, 'svm') END AS svm_name, "
  "s.count AS count, s.unpaired AS unpaired, s.total_dur AS total_dur, "
  "s.avg_dur AS avg_dur, s.min_dur AS min_dur, s.max_dur AS max_dur, "
  "p.p50_dur AS p50_dur, p.p90_dur AS p90_dur, p.p99_dur AS p99_dur "
  "FROM stats AS s LEFT JOIN pct AS p "
  "ON p.reason = s.reason AND p.exit_code IS s.exit_code "
  "ORDER BY s.count DESC, s.reason, s.exit_code";

static const char zTsPageFaultSummaryView[] =
  "SELECT pid, comm, module, count(*) AS faults, "
  "count(CASE WHEN kind = 'code' THEN 1 END) AS code, "
  "count(CASE WHEN kind = 'data' THEN 1 END) AS data, "
  "count(CASE WHEN access = 'read' THEN 1 END) AS reads, "
  "count(CASE WHEN access = 'write' THEN 1 END) AS writes, "
  "count(CASE WHEN access = 'exec' THEN 1 END) AS execs, "
  "count(CASE WHEN access IS NULL THEN 1 END) AS unknown_access "
  "FROM (SELECT pid, comm, module, "
    "CASE WHEN error_code IS NULL THEN NULL "
    "WHEN error_code & 16 THEN 'exec' "
    "WHEN error_code & 2 THEN 'write' ELSE 'read' END AS access, "
    "CASE WHEN error_code IS NOT NULL THEN "
    "(CASE WHEN error_code & 16 THEN 'code' ELSE 'data' END) "
    "WHEN address IS NULL OR ip IS NULL THEN NULL "
    "WHEN address = ip THEN 'code' ELSE 'data' END AS kind "
    "FROM page_fault) "
  "GROUP BY pid, comm, module "
  "ORDER BY faults DESC, pid, comm, module";

/*
** Hard/soft x code/data per process and module (seeds/000's bars).  Code:
** the `code` column (the mapping is executable), else what
** page_fault_summary uses (error_code bit 4, or address = ip).
*/
static const char zTsPageFaultTrafficView[] =
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
    "WHEN error_code IS NOT NULL THEN (error_code & 16) != 0 "
    "WHEN address IS NULL OR ip IS NULL THEN NULL "
    "ELSE address = ip END AS is_code "
    "FROM page_fault) "
  "GROUP BY pid, comm, module "
  "ORDER BY faults DESC, pid, comm, module";

static const char zTsSpanSelfTimeView[] =
  "WITH children AS ("
    "SELECT parent_id, sum(dur) AS child_dur FROM span "
    "WHERE parent_id IS NOT NULL GROUP BY parent_id), "
  "by_parent AS ("
    "SELECT p.name AS name, sum(c.child_dur) AS child_dur "
    "FROM children AS c JOIN span AS p ON p.id = c.parent_id "
    "GROUP BY p.name), "
  /* A call inside an earlier call of the same name on its thread (which
  ** began before it and ends after it begins, or has not ended: flags 2)
  ** is a recursive one. */
  "outermost AS ("
    "SELECT name, sum(dur) AS total_dur FROM ("
      "SELECT name, ts, dur, max(CASE WHEN flags & 2 "
        "THEN 9223372036854775807 ELSE ts + coalesce(dur, 0) END) OVER ("
        "PARTITION BY pid, tid, name ORDER BY id "
        "ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS open_until "
      "FROM span) "
    "WHERE open_until IS NULL OR ts >= open_until GROUP BY name), "
  "totals AS ("
    "SELECT name, count(*) AS calls, sum(dur) AS all_dur, "
    "avg(dur) AS avg_dur, max(dur) AS max_dur, min(depth) AS min_depth, "
    "max(depth) AS max_depth FROM span GROUP BY name) "
  "SELECT t.name AS name, t.calls AS calls, o.total_dur AS total_dur, "
  "t.all_dur - coalesce(b.child_dur, 0) AS self_dur, "
  "t.avg_dur AS avg_dur, t.max_dur AS max_dur, "
  "t.min_depth AS min_depth, t.max_depth AS max_depth "
  "FROM totals AS t LEFT JOIN by_parent AS b ON b.name = t.name "
  "LEFT JOIN outermost AS o ON o.name = t.name "
  "ORDER BY self_dur DESC, name";

static const char zTsSyscallCountsView[] =
  "SELECT CASE WHEN raw THEN k ELSE syscall_nr(k) END AS id, "
  "CASE WHEN raw THEN syscall_name(k) ELSE k END AS name, "
  "sum(n) AS count "
  "FROM (SELECT name = 'sys_enter' AS raw, "
    "CASE WHEN name = 'sys_enter' THEN CAST(substr(args, 4) AS INTEGER) "
    "ELSE substr(name, 11) END AS k, count(*) AS n "
    "FROM ftrace_event "
    "WHERE (name = 'sys_enter' AND args GLOB 'NR [0-9-]*') "
    "OR name GLOB 'sys_enter_?*' "
    "GROUP BY 1, 2) "
  "GROUP BY 1, 2 "
  "ORDER BY count DESC, id, name";

/*
** The same answers from the rollup tables, where the session has them:
** O(groups) instead of a scan of every row (tracestore_rollup.c computes
** each column by the rule of the SQL above).
*/
static const char zTsSyscallCountsRollup[] =
  "SELECT CASE WHEN raw THEN k ELSE syscall_nr(k) END AS id, "
  "CASE WHEN raw THEN syscall_name(k) ELSE k END AS name, "
  "sum(n) AS count FROM rollup_syscall GROUP BY 1, 2 "
  "ORDER BY count DESC, id, name";

static const char zTsKvmExitReasonsRollup[] =
  "SELECT reason, exit_code, "
  "CASE WHEN reason GLOB '0x*' OR reason GLOB '[0-9]*' "
    "OR reason = 'UNKNOWN' "
    "THEN kvm_exit_reason_name(exit_code, 'vmx') END AS vmx_name, "
  "CASE WHEN reason GLOB '0x*' OR reason GLOB '[0-9]*' "
    "OR reason = 'UNKNOWN' "
    "THEN kvm_exit_reason_name(exit_code, 'svm') END AS svm_name, "
  "count, unpaired, total_dur, avg_dur, min_dur, max_dur, "
  "p50_dur, p90_dur, p99_dur FROM rollup_kvm_exit "
  "ORDER BY count DESC, reason, exit_code";

static const char zTsPageFaultSummaryRollup[] =
  "SELECT pid, comm, module, faults, code, data, reads, writes, execs, "
  "unknown_access FROM rollup_page_fault "
  "ORDER BY faults DESC, pid, comm, module";

static const char zTsPageFaultTrafficRollup[] =
  "SELECT pid, comm, module, faults, hard, soft, unclassified, hard_code, "
  "hard_data, soft_code, soft_data FROM rollup_page_fault "
  "ORDER BY faults DESC, pid, comm, module";

static const char zTsSpanSelfTimeRollup[] =
  "SELECT name, calls, total_dur, self_dur, avg_dur, max_dur, min_depth, "
  "max_depth FROM rollup_span ORDER BY self_dur DESC, name";

/* The calls still running: the rows the rollup lists (O(running calls)),
** read from span as they are now. */
static const char zTsSpanRunningRollup[] =
  "SELECT * FROM span WHERE id IN (SELECT id FROM rollup_span_open) "
  "AND flags & 2 ORDER BY id";

static const char zTsSpanRunningView[] =
  "SELECT * FROM span WHERE flags & 2 ORDER BY id";

static const char zTsEventCountsRollup[] =
  "SELECT store, name, count FROM rollup_event_count "
  "ORDER BY count DESC, store, name";

static const char zTsEventRateRollup[] =
  "SELECT store, name, ts, dur, count, count * 1e9 / dur AS per_second "
  "FROM rollup_event_rate ORDER BY store, name, ts";

/* A frame's name as perf report prints it: its symbol, else the address
** in its mapped file (or the address), as 0x and 16 hex digits. */
#define TS_FRAME_NAME(f) \
  "coalesce(" f ".symbol, printf('0x%016x', coalesce(" f ".module_offset, " \
  f ".ip)))"

/* perf report --no-children: samples by the frame they were taken in. */
static const char zTsSampleSelfView[] =
  "SELECT s.comm AS comm, f.module AS module, " TS_FRAME_NAME("f")
  " AS symbol, f.kernel AS kernel, count(*) AS samples, "
  "sum(s.period) AS period, "
  "100.0 * sum(s.period) / (SELECT sum(period) FROM sample) AS overhead "
  "FROM sample AS s JOIN stack AS k ON k.id = s.stack_id "
  "JOIN frame AS f ON f.id = k.frame_id "
  "GROUP BY 1, 2, 3, 4 "
  "ORDER BY period DESC, samples DESC, comm, module, symbol";

/* The flame graph: every callsite with samples at or below it.  The
** samples are counted per leaf callsite first, so the walk up the stacks
** is O(distinct stacks x depth). */
static const char zTsSampleFlameView[] =
  "WITH RECURSIVE up(callsite, samples, period, self, self_period) AS ("
    "SELECT stack_id, count(*), sum(period), count(*), sum(period) "
    "FROM sample WHERE stack_id IS NOT NULL GROUP BY stack_id "
    "UNION ALL "
    "SELECT k.parent_id, up.samples, up.period, 0, 0 "
    "FROM up JOIN stack AS k ON k.id = up.callsite "
    "WHERE k.parent_id IS NOT NULL) "
  "SELECT k.id AS id, k.parent_id AS parent_id, k.depth AS depth, "
  "f.module AS module, " TS_FRAME_NAME("f") " AS name, "
  "f.kernel AS kernel, sum(up.self) AS self, sum(up.samples) AS total, "
  "sum(up.self_period) AS self_period, sum(up.period) AS total_period "
  "FROM up JOIN stack AS k ON k.id = up.callsite "
  "JOIN frame AS f ON f.id = k.frame_id "
  "GROUP BY k.id ORDER BY total DESC, id";

/*
** line_time: kernprof's table (line_profiler's Line #, Hits, Time, Per Hit,
** % Time, Line Contents), per function and line: a line's share is of
** the time of all the function's lines.  Functions in order of file and
** first line.  line_hot: every line by its self time, the program's
** hottest first.  Both over per_line, one row per (function, file,
** line): from the line rollup (O(lines of the program)), or one GROUP BY
** pass over line (the 'scan' mode, and stores of another layout).
*/
#define TS_PER_LINE_SCAN \
  "WITH per_line AS (" \
    "SELECT name, file, lineno, count(*) AS hits, sum(dur) AS total_dur, " \
    "sum(self_dur) AS self_dur FROM line GROUP BY name, file, lineno) "
#define TS_PER_LINE_ROLLUP \
  "WITH per_line AS (" \
    "SELECT name, file, lineno, hits, total_dur, self_dur FROM rollup_line) "
#define TS_LINE_TIME \
  "SELECT name AS function, file, lineno, hits, total_dur, " \
  "total_dur * 1.0 / hits AS per_hit, " \
  "round(100.0 * total_dur / nullif(function_dur, 0), 1) AS pct_time, " \
  "self_dur, source_line(file, lineno) AS line_contents " \
  "FROM (SELECT *, sum(total_dur) OVER (PARTITION BY name) AS function_dur, " \
    "min(lineno) OVER (PARTITION BY name) AS first_line FROM per_line) " \
  "ORDER BY file, first_line, function, lineno"
#define TS_LINE_HOT \
  "SELECT file, lineno, name AS function, hits, self_dur, total_dur, " \
  "round(100.0 * self_dur / nullif(sum(self_dur) OVER (), 0), 1) " \
  "AS pct_self, source_line(file, lineno) AS line_contents " \
  "FROM per_line ORDER BY self_dur DESC, file, lineno, function"

static const char zTsLineTimeView[] = TS_PER_LINE_SCAN TS_LINE_TIME;
static const char zTsLineTimeRollup[] = TS_PER_LINE_ROLLUP TS_LINE_TIME;
static const char zTsLineHotView[] = TS_PER_LINE_SCAN TS_LINE_HOT;
static const char zTsLineHotRollup[] = TS_PER_LINE_ROLLUP TS_LINE_HOT;

/* The names of the views below, for tracestoreIsViewName(). */
static const char *const azTsViewName[] = {
  "event", "args", "syscall_counts", "kvm_exit_reasons",
  "page_fault_summary", "page_fault_traffic", "span_self_time",
  "span_running", "event_counts", "event_rate", "sample_self",
  "sample_flame", "line_time", "line_hot",
};

int tracestoreIsViewName(const char *zName){
  int i;
  for(i=0; i<(int)(sizeof(azTsViewName)/sizeof(azTsViewName[0])); i++){
    if( sqlite3_stricmp(zName, azTsViewName[i])==0 ) return 1;
  }
  return 0;
}

/* Views one call handles at most: the seven it makes and stale ones. */
#define TS_MAX_VIEWS 24

/* A view tracestoreViewsAttach() may make. */
typedef struct ts_view ts_view;
struct ts_view {
  char zName[32];       /* View name */
  int eAction;          /* TS_ACTION_* */
  char *zBody;          /* SELECT text (sqlite3_malloc) */
  char *zOldSql;        /* Stored text of the view dropped */
  int bDropped;         /* The old view has been dropped */
  int bCreated;         /* The new view has been created */
  int mask;             /* TS_HAS_* bits of the stores it reads */
};

/* The text SQLite stores for the view: "CREATE VIEW "NAME" AS ..." */
static char *tsViewStoredSql(const ts_view *pView){
  return sqlite3_mprintf("CREATE VIEW \"%w\" AS " TS_VIEW_MARK " %s",
                         pView->zName, pView->zBody);
}

/* True if zSql is the stored text of a view this file made. */
static int tsIsTracestoreView(const char *zSql){
  return zSql!=0 && sqlite3_strnicmp(zSql, "CREATE VIEW ", 12)==0
      && strstr(zSql, " AS " TS_VIEW_MARK " ")!=0;
}

/* tsForEachObject() callback of tsStoresOf(): the TS_HAS_* bit of a table. */
static int tsAddStore(void *pArg, const char *zName, const char *zCreate){
  int i;
  if( sqlite3_strglob("CREATE VIRTUAL TABLE * USING tracestore_rollup(*",
                      zCreate)==0 ){
    for(i=0; i<(int)(sizeof(aTsRollupTable)/sizeof(aTsRollupTable[0])); i++){
      if( sqlite3_stricmp(zName, aTsRollupTable[i].zTable)==0 ){
        *(int*)pArg |= aTsRollupTable[i].mask;
      }
    }
    return SQLITE_OK;
  }
  if( sqlite3_strglob("CREATE VIRTUAL TABLE * USING tracestore(*",
                      zCreate)!=0 ){
    return SQLITE_OK;
  }
  for(i=0; i<TraceRecordKindMaximum; i++){
    if( sqlite3_stricmp(zName, TraceRecordTypes[i].Schema->Name)==0 ){
      *(int*)pArg |= TS_HAS(i);
    }
  }
  return SQLITE_OK;
}

/* Returns the stores zSchema has tracestore tables for, as TS_HAS_* bits. */
static int tsStoresOf(sqlite3 *db, const char *zSchema, int *pMask,
                      char **pzErr){
  sqlite3_stmt *pStmt = 0;
  char *zSql;
  int rc;
  *pMask = 0;
  rc = tsForEachObject(db, zSchema, "table", tsAddStore, pMask, pzErr);
  if( rc!=SQLITE_OK || (*pMask & TS_HAS_PAGE_FAULT)==0 ) return rc;
  zSql = sqlite3_mprintf("SELECT hard, code FROM \"%w\".page_fault",
                         zSchema);
  if( zSql==0 ) return SQLITE_NOMEM;
  if( sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0)==SQLITE_OK ){
    *pMask |= TS_HAS_FAULT_CLASSES;
  }
  sqlite3_finalize(pStmt);
  sqlite3_free(zSql);
  return SQLITE_OK;
}

/* Adds a view to be made, reading the stores in mask; zBody is copied.
** Returns SQLITE_NOMEM or OK. */
static int tsAddView(ts_view *aView, int *pnView, const char *zName,
                     int mask, const char *zBody){
  ts_view *p = &aView[(*pnView)++];
  memset(p, 0, sizeof(*p));
  memcpy(p->zName, zName, strlen(zName)+1);
  p->mask = mask;
  p->zBody = sqlite3_mprintf("%s", zBody);
  return p->zBody ? SQLITE_OK : SQLITE_NOMEM;
}

/* The views for the stores in mask, into aView (TS_MAX_VIEWS entries). */
static int tsWantedViews(int mask, ts_view *aView, int *pnView){
  sqlite3_str *pBody;
  char *zBody;
  int i, nArm = 0, rc;

  /* event: always, empty without event stores. */
  pBody = sqlite3_str_new(0);
  for(i=0; i<TraceRecordKindMaximum; i++){
    if( (mask & TS_HAS(i))==0
     || (TraceRecordTypes[i].Flags & TRACE_RECORD_EVENT)==0 ){
      continue;
    }
    if( nArm ) sqlite3_str_appendall(pBody, " UNION ALL ");
    tsAppendEventArm(pBody, &TraceRecordTypes[i]);
    nArm++;
  }
  if( nArm==0 ){
    sqlite3_str_appendall(pBody, "SELECT NULL AS ts, NULL AS name, "
                          "NULL AS pid, NULL AS tid, NULL AS cpu, "
                          "NULL AS store, NULL AS id WHERE 0");
  }
  zBody = sqlite3_str_finish(pBody);
  if( zBody==0 ) return SQLITE_NOMEM;
  rc = tsAddView(aView, pnView, "event", mask, zBody);
  sqlite3_free(zBody);
  if( rc!=SQLITE_OK ) return rc;

  if( mask & TS_HAS_FTRACE_EVENT ){
    rc = tsAddView(aView, pnView, "args", TS_HAS_FTRACE_EVENT, zTsArgsView);
    if( rc==SQLITE_OK ){
      rc = tsAddView(aView, pnView, "syscall_counts", TS_HAS_FTRACE_EVENT,
                     (mask & TS_HAS_RU_SYSCALL) ? zTsSyscallCountsRollup :
                     zTsSyscallCountsView);
    }
    if( rc!=SQLITE_OK ) return rc;
  }
  if( mask & TS_HAS_KVM_EXIT ){
    rc = tsAddView(aView, pnView, "kvm_exit_reasons", TS_HAS_KVM_EXIT,
                   (mask & TS_HAS_RU_KVM) ? zTsKvmExitReasonsRollup :
                   zTsKvmExitReasonsView);
    if( rc!=SQLITE_OK ) return rc;
  }
  if( mask & TS_HAS_PAGE_FAULT ){
    rc = tsAddView(aView, pnView, "page_fault_summary", TS_HAS_PAGE_FAULT,
                   (mask & TS_HAS_RU_FAULT) ? zTsPageFaultSummaryRollup :
                   zTsPageFaultSummaryView);
    if( rc==SQLITE_OK && (mask & TS_HAS_FAULT_CLASSES) ){
      rc = tsAddView(aView, pnView, "page_fault_traffic", TS_HAS_PAGE_FAULT,
                     (mask & TS_HAS_RU_FAULT) ? zTsPageFaultTrafficRollup :
                     zTsPageFaultTrafficView);
    }
    if( rc!=SQLITE_OK ) return rc;
  }
  if( mask & TS_HAS_SPAN ){
    rc = tsAddView(aView, pnView, "span_self_time", TS_HAS_SPAN,
                   (mask & TS_HAS_RU_SPAN) ? zTsSpanSelfTimeRollup :
                   zTsSpanSelfTimeView);
    if( rc==SQLITE_OK ){
      rc = tsAddView(aView, pnView, "span_running", TS_HAS_SPAN,
                     (mask & TS_HAS_RU_SPAN_OPEN) ? zTsSpanRunningRollup :
                     zTsSpanRunningView);
    }
    if( rc!=SQLITE_OK ) return rc;
  }
  if( mask & TS_HAS_LINE ){
    rc = tsAddView(aView, pnView, "line_time", TS_HAS_LINE,
                   (mask & TS_HAS_RU_LINE) ? zTsLineTimeRollup :
                   zTsLineTimeView);
    if( rc==SQLITE_OK ){
      rc = tsAddView(aView, pnView, "line_hot", TS_HAS_LINE,
                     (mask & TS_HAS_RU_LINE) ? zTsLineHotRollup :
                     zTsLineHotView);
    }
    if( rc!=SQLITE_OK ) return rc;
  }
  if( (mask & TS_HAS_STACKS)==TS_HAS_STACKS ){
    rc = tsAddView(aView, pnView, "sample_self", TS_HAS_STACKS,
                   zTsSampleSelfView);
    if( rc==SQLITE_OK ){
      rc = tsAddView(aView, pnView, "sample_flame", TS_HAS_STACKS,
                     zTsSampleFlameView);
    }
    if( rc!=SQLITE_OK ) return rc;
  }
  if( mask & TS_HAS_RU_EVENT ){
    rc = tsAddView(aView, pnView, "event_counts", 0, zTsEventCountsRollup);
    if( rc==SQLITE_OK ){
      rc = tsAddView(aView, pnView, "event_rate", 0, zTsEventRateRollup);
    }
    if( rc!=SQLITE_OK ) return rc;
  }
  return SQLITE_OK;
}

/* The views of tracestoreViewsAttach(): those wanted, then stale ones. */
typedef struct ts_views ts_views;
struct ts_views {
  ts_view *aView;       /* TS_MAX_VIEWS entries */
  int nWanted;          /* The first nWanted are the views to make */
  int nView;            /* Entries used */
};

/*
** tsForEachObject() callback of tracestoreViewsAttach(): adds a
** TS_ACTION_DROP entry for view zName if this file made it and it is not
** wanted.  More stale views than there is room for are left for the next
** call.
*/
static int tsAddStaleView(void *pArg, const char *zName, const char *zSql){
  ts_views *p = (ts_views*)pArg;
  ts_view *pView;
  int i;
  if( !tsIsTracestoreView(zSql) || strlen(zName)>=sizeof(pView->zName)
   || p->nView>=TS_MAX_VIEWS ){
    return SQLITE_OK;
  }
  for(i=0; i<p->nWanted; i++){
    if( sqlite3_stricmp(p->aView[i].zName, zName)==0 ) return SQLITE_OK;
  }
  pView = &p->aView[p->nView++];
  memset(pView, 0, sizeof(*pView));
  memcpy(pView->zName, zName, strlen(zName)+1);
  pView->eAction = TS_ACTION_DROP;
  pView->zOldSql = sqlite3_mprintf("%s", zSql);
  return pView->zOldSql ? SQLITE_OK : SQLITE_NOMEM;
}

/*
** Checks that a view just made compiles (its tables and functions exist),
** so that a mistake shows at attach time rather than at the first query.
*/
static int tsCheckCompiles(sqlite3 *db, const char *zSchema,
                           const ts_view *pView, const char *zPath,
                           char **pzErr){
  sqlite3_stmt *pStmt = 0;
  sqlite3_str *pMsg;
  char *zSql = sqlite3_mprintf("SELECT * FROM \"%w\".\"%w\" LIMIT 0",
                               zSchema, pView->zName);
  int rc, i, n = 0;
  if( zSql==0 ) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  if( rc!=SQLITE_OK ){
    /* Say which files it reads: a store lacking a column is to blame. */
    pMsg = sqlite3_str_new(db);
    sqlite3_str_appendf(pMsg, "cannot make the view %s.%s: %s", zSchema,
                        pView->zName, sqlite3_errmsg(db));
    for(i=0; i<TraceRecordKindMaximum; i++){
      if( pView->mask & TS_HAS(i) ){
        sqlite3_str_appendf(pMsg, "%s%s.store", n++ ? ", " : " (it reads ",
                            TraceRecordTypes[i].Schema->Name);
      }
    }
    if( n ) sqlite3_str_appendf(pMsg, " of trace session '%s')", zPath);
    *pzErr = sqlite3_str_finish(pMsg);
  }
  sqlite3_finalize(pStmt);
  return rc;
}

int tracestoreViewsAttach(sqlite3 *db, const char *zSchema,
                          const char *zPath, char **pzErr){
  ts_view aView[TS_MAX_VIEWS];
  ts_view *p;
  ts_views views;
  char *zWanted;
  int nView = 0, mask, rc, i;

  memset(aView, 0, sizeof(aView));
  *pzErr = 0;
  if( sqlite3_stricmp(zSchema, "temp")!=0 ) return SQLITE_OK;

  rc = tsStoresOf(db, zSchema, &mask, pzErr);
  if( rc==SQLITE_OK ) rc = tsWantedViews(mask, aView, &nView);
  for(i=0; rc==SQLITE_OK && i<nView; i++){
    p = &aView[i];
    zWanted = tsViewStoredSql(p);
    rc = zWanted==0 ? SQLITE_NOMEM :
         tsCheckName(db, zSchema, p->zName, "view", tsIsTracestoreView,
                     zWanted, &p->eAction, &p->zOldSql, pzErr);
    sqlite3_free(zWanted);
  }
  if( rc==SQLITE_OK ){
    views.aView = aView;
    views.nWanted = views.nView = nView;
    rc = tsForEachObject(db, zSchema, "view", tsAddStaleView, &views, pzErr);
    nView = views.nView;
  }
  if( rc!=SQLITE_OK ) goto views_done;

  for(i=0; i<nView; i++){
    p = &aView[i];
    if( p->eAction!=TS_ACTION_REPLACE && p->eAction!=TS_ACTION_DROP ){
      continue;
    }
    rc = tsExec(db, sqlite3_mprintf("DROP VIEW \"%w\".\"%w\"", zSchema,
                                    p->zName), pzErr);
    if( rc!=SQLITE_OK ) goto views_undo;
    p->bDropped = 1;
  }
  for(i=0; i<nView; i++){
    p = &aView[i];
    if( p->eAction==TS_ACTION_KEEP || p->eAction==TS_ACTION_DROP ) continue;
    rc = tsExec(db, sqlite3_mprintf("CREATE VIEW \"%w\".\"%w\" AS "
                                    TS_VIEW_MARK " %s", zSchema,
                                    p->zName, p->zBody), pzErr);
    if( rc!=SQLITE_OK ) goto views_undo;
    p->bCreated = 1;
    rc = tsCheckCompiles(db, zSchema, p, zPath, pzErr);
    if( rc!=SQLITE_OK ) goto views_undo;
  }
  goto views_done;

views_undo:
  /* Best effort, keeping the first error: put back what was there. */
  for(i=0; i<nView; i++){
    p = &aView[i];
    if( p->bCreated ){
      tsExec(db, sqlite3_mprintf("DROP VIEW IF EXISTS \"%w\".\"%w\"",
                                 zSchema, p->zName), 0);
    }
    if( p->bDropped && p->zOldSql ){
      tsExec(db, sqlite3_mprintf("CREATE VIEW \"%w\".%s", zSchema,
                                 p->zOldSql + 12), 0);
    }
  }

views_done:
  for(i=0; i<TS_MAX_VIEWS; i++){
    sqlite3_free(aView[i].zBody);
    sqlite3_free(aView[i].zOldSql);
  }
  return rc;
}

/* -------------------------------------------------------------------------
** The same views over many sessions (tracestore_attach_sessions(),
** tracestore_fleet.c).
*/

/* tsForEachObject() callback: a WITH clause entry per tracestore table,
** "NAME" AS (SELECT * FROM "SCHEMA"."NAME"). */
typedef struct ts_cte ts_cte;
struct ts_cte {
  sqlite3_str *pStr;
  const char *zSchema;
  int n;
};
static int tsAddCte(void *pArg, const char *zName, const char *zCreate){
  ts_cte *p = (ts_cte*)pArg;
  if( sqlite3_strglob("CREATE VIRTUAL TABLE * USING tracestore(*",
                      zCreate)!=0
   && sqlite3_strglob("CREATE VIRTUAL TABLE * USING tracestore_rollup(*",
                      zCreate)!=0 ){
    return SQLITE_OK;
  }
  sqlite3_str_appendf(p->pStr, "%s\"%w\" AS (SELECT * FROM \"%w\".\"%w\")",
                      p->n++ ? ", " : "WITH ", zName, p->zSchema, zName);
  return SQLITE_OK;
}

/*
** Makes in temp each view tracestoreViewsAttach() would make for any of
** the nSes sessions attached in schemas azSchema[] (hosts azHost[], NULL
** for none), as the UNION ALL over the sessions that have its stores of
** SELECT session, host, * FROM that session's own view: the view's text,
** run inside a WITH clause whose entries named like the stores read the
** session's schema (a CTE hides a table of the same name), so that each
** session's rows are aggregated apart, with the same SQL as a single
** session.  The text starts with TS_VIEW_MARK, so a later
** tracestore_attach() in temp replaces these as its own, and holds
** TS_FLEET_MARK, by which tracestore_fleet.c finds them.
*/
int tracestoreViewsFleet(sqlite3 *db, int nSes, const char *const *azSchema,
                         const char *const *azHost, char **pzErr){
  ts_view *aAll;                /* TS_MAX_VIEWS per session, then union */
  int *anView;
  int mask = 0, m, i, j, k, rc = SQLITE_OK;
  sqlite3_stmt *pStmt;

  aAll = sqlite3_malloc64(sizeof(ts_view)*TS_MAX_VIEWS*(size_t)(nSes+1));
  anView = sqlite3_malloc64(sizeof(int)*(size_t)(nSes+1));
  if( aAll==0 || anView==0 ){
    sqlite3_free(aAll);
    sqlite3_free(anView);
    return SQLITE_NOMEM;
  }
  memset(aAll, 0, sizeof(ts_view)*TS_MAX_VIEWS*(size_t)(nSes+1));
  memset(anView, 0, sizeof(int)*(size_t)(nSes+1));
  for(i=0; rc==SQLITE_OK && i<nSes; i++){
    rc = tsStoresOf(db, azSchema[i], &m, pzErr);
    if( rc==SQLITE_OK ){
      rc = tsWantedViews(m, &aAll[i*TS_MAX_VIEWS], &anView[i]);
    }
    mask |= m;
  }
  if( rc==SQLITE_OK ){
    rc = tsWantedViews(mask, &aAll[nSes*TS_MAX_VIEWS], &anView[nSes]);
  }
  for(j=0; rc==SQLITE_OK && j<anView[nSes]; j++){
    const char *zView = aAll[nSes*TS_MAX_VIEWS + j].zName;
    sqlite3_str *pSql = sqlite3_str_new(db);
    int nArm = 0;
    sqlite3_str_appendf(pSql, "CREATE VIEW temp.\"%w\" AS " TS_VIEW_MARK
                        " " TS_FLEET_MARK " ", zView);
    for(i=0; i<nSes; i++){
      ts_view *pView = 0;
      ts_cte cte;
      for(k=0; k<anView[i]; k++){
        if( strcmp(aAll[i*TS_MAX_VIEWS + k].zName, zView)==0 ){
          pView = &aAll[i*TS_MAX_VIEWS + k];
        }
      }
      if( pView==0 ) continue;
      sqlite3_str_appendf(pSql, "%sSELECT %Q AS session, %Q AS host, * "
                          "FROM (", nArm++ ? " UNION ALL " : "", azSchema[i],
                          azHost[i]);
      cte.pStr = pSql;
      cte.zSchema = azSchema[i];
      cte.n = 0;
      rc = tsForEachObject(db, azSchema[i], "table", tsAddCte, &cte, pzErr);
      sqlite3_str_appendf(pSql, " SELECT * FROM (%s))", pView->zBody);
    }
    if( rc!=SQLITE_OK || nArm==0 ){
      sqlite3_free(sqlite3_str_finish(pSql));
      continue;
    }
    rc = tsExec(db, sqlite3_str_finish(pSql), pzErr);
    if( rc==SQLITE_OK ){
      char *zProbe = sqlite3_mprintf("SELECT * FROM temp.\"%w\" LIMIT 0",
                                     zView);
      pStmt = 0;
      rc = zProbe==0 ? SQLITE_NOMEM :
           sqlite3_prepare_v2(db, zProbe, -1, &pStmt, 0);
      if( rc!=SQLITE_OK && rc!=SQLITE_NOMEM ){
        *pzErr = sqlite3_mprintf("cannot make the view temp.%s over the "
                                 "sessions: %s", zView, sqlite3_errmsg(db));
      }
      sqlite3_finalize(pStmt);
      sqlite3_free(zProbe);
    }
  }
  for(i=0; i<(nSes+1)*TS_MAX_VIEWS; i++){
    sqlite3_free(aAll[i].zBody);
    sqlite3_free(aAll[i].zOldSql);
  }
  sqlite3_free(aAll);
  sqlite3_free(anView);
  return rc;
}
