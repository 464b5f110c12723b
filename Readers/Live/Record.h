/*
** tracestore record (Record.c): live capture from tracefs into a session.
** Hosted: libc, threads.
*/
#ifndef TRACER_RECORD_H
#define TRACER_RECORD_H

#include "Rtl/Rtl.h"

/* argv holds the arguments after "record".  Returns the exit code. */
int tracestoreRecord(PRTL pRtl, int argc, char **argv);

#endif
