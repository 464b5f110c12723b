/*++

Module Name:

    UftraceRecording.h

Abstract:

    What UftraceRecording.c offers the other files of the uftrace reader:
    the mapping of the directory's files and their errors, reading info
    and task.txt, and the session (process image) a task runs in at a
    time, whose fast path is inline here.

Environment:

    Core: no C runtime; the OS only through PRTL.  Included by the
    Uftrace*.c files; the inline routines call UftraceRecording.c.

--*/

#ifndef _TRACER_UFTRACE_RECORDING_H_
#define _TRACER_UFTRACE_RECORDING_H_

#include "UftraceReader.h"

//
// Maps DIRECTORY/NAME read-only (an empty file maps to no data).
// RTL_STATUS_NOT_FOUND is returned without an error recorded: the caller
// decides whether a missing file is one.
//

RTL_STATUS UftraceMapFile(PUFTRACE_READER Reader, PCSZ Name, ULONG NameLength,
                          PUFTRACE_FILE File);

VOID UftraceUnmapFile(PUFTRACE_READER Reader, PUFTRACE_FILE File);

//
// Records "DIRECTORY/NAME: offset N: Reason" (a file of the directory
// that is not what uftrace writes).
//

RTL_STATUS UftraceFileError(PUFTRACE_READER Reader, PCSZ Name,
                            ULONG NameLength, SIZE_T Offset, PCSZ Reason);

//
// info (the header and the specs of the recording), then task.txt.
//

RTL_STATUS UftraceReadInfo(PUFTRACE_READER Reader);

RTL_STATUS UftraceReadTasks(PUFTRACE_READER Reader);

//
// The session (process image) a task runs at Time: the one found last
// while Time stays in the times it is valid for (the fast path, inline:
// every file asks for each record), else UftraceFindSessionSlow.
//

ULONG UftraceFindSessionSlow(PUFTRACE_READER Reader, PUFTRACE_TASK Task,
                             LONGLONG Time);

static inline
ULONG
UftraceFindSession(
    PUFTRACE_READER Reader,
    PUFTRACE_TASK Task,
    LONGLONG Time
    )
{
    if (Task->SessionUntil != 0 && Time >= Task->SessionFrom &&
        Time < Task->SessionUntil) {
        return Task->Session;
    }
    return UftraceFindSessionSlow(Reader, Task, Time);
}

//
// Whether the current record runs another program than the task's last
// record did: a new session of the task's own process (an exec).
//

static inline
BOOL
UftraceStartsProgram(
    PUFTRACE_READER Reader,
    PUFTRACE_TASK Task,
    ULONG Session
    )
{
    return Task->Program != 0 && Task->Program != Session + 1 &&
           Reader->Sessions[Session].Pid == Task->Pid;
}

#endif // _TRACER_UFTRACE_RECORDING_H_
