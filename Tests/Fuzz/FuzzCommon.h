/*
** What the libFuzzer harnesses of Tests/Fuzz share (FuzzCommon.c): files,
** importing through the readers as `tracestore import` does, and reading
** a session back whole through the store API.
**
** Each harness defines fuzzOne() (one input, called by libFuzzer's
** LLVMFuzzerTestOneInput in FuzzCommon.c) and may define fuzzSeeds(),
** called before libFuzzer reads its corpus with that corpus directory.
** Built with FUZZ_REPLAY_MAIN (the regular build), FuzzCommon.c has a main()
** that runs fuzzOne once on each FILE, or each file of each DIRECTORY,
** given on the command line; "--seeds" replays the harness's own seeds.
*/
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "Readers/TraceFormats.h"
#include "Readers/Decoders/Ftrace/TraceEvent.h"

/* One input: 0 when it was taken, 1 when it was rejected with an error. */
int fuzzOne(const uint8_t *aData, size_t nData);

/* Writes the harness's seed inputs into zDir (which exists). */
void fuzzSeeds(const char *zDir);

/* Non-zero while the replay main runs the harness's own seeds ("--seeds"):
** unmutated inputs, which a harness may require to be taken whole. */
extern int fuzzReplayingSeeds;

/* A fresh directory under $TMPDIR (or /tmp), removed at exit with all
** the files and directories fuzzMakeTemp returned. */
void fuzzMakeTemp(char *zOut, size_t nOut);

/* Removes the files of directory z (not recursive) and z itself. */
void fuzzRemoveDir(const char *z);

/* 0 on success. */
int fuzzWriteFile(const char *zPath, const uint8_t *a, size_t n);

/* The whole of a file, malloc'ed (its size in *pn); exits on error. */
uint8_t *fuzzReadFile(const char *zPath, size_t *pn);

/* Imports zInput (a file or a uftrace directory) as format zFormat into
** the session directory zSession (made or continued), as `tracestore
** import` does.  Returns 0 if the import succeeded, 1 if it failed. */
/* The events' formats fuzzImport gives the import (--formats), or NULL. */
extern PTRACE_EVENT_TABLE fuzzEventFormats;

int fuzzImport(PRTL pRtl, const char *zSession, const char *zFormat,
               const char *zInput);

/* Opens zSession read-only and reads every column of every committed record
** of every store back, every string id resolved.  Returns 0 if it opened,
** 1 if the session was refused. */
int fuzzReadSession(PRTL pRtl, const char *zSession);

/*
** Opens zSession read-only and reads every event store's rollup answer
** (TraceRollupRead) and every row of it.  Returns non-zero if one fails
** (a rollup file the reader refused is not a failure: it folds the rows).
*/
int fuzzReadRollups(PRTL pRtl, const char *zSession);

#endif
