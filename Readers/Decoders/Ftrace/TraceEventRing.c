/*++

Module Name:

    TraceEventRing.c

Abstract:

    The ring-buffer page decoder: a page header laid out as header_page
    says, then the compressed event headers (type_len, time_delta, time
    extends, absolute time stamps, padding) walked to each data event.

Environment:

    Core: no C runtime, no OS service.  Owns TRACE_RING_PAGE's cursor.
    Calls nothing outside the event model (the page is the caller's).

--*/

#include "TraceEventInternal.h"

//
// Ring-buffer pages.
//

RTL_STATUS
TraceRingPageBegin(
    PTRACE_RING_PAGE Page,
    PCTRACE_PAGE_LAYOUT Layout,
    const BYTE *PageStart,
    SIZE_T PageLength,
    PCSZ *Reason
    )
{
    ULONGLONG Commit;
    ULONGLONG Size;
    SIZE_T Capacity;

    if (PageLength < Layout->DataOffset ||
        PageLength < Layout->CommitOffset + Layout->CommitSize ||
        PageLength < Layout->TimestampOffset + 8) {
        *Reason = "page shorter than its header";
        return RTL_STATUS_BAD_FORMAT;
    }

    //
    // The page itself bounds the data (a sub-buffer may be larger than
    // the page header_page was written for).
    //

    Capacity = PageLength - Layout->DataOffset;

    Page->Timestamp = TraceEventReadNumber(PageStart + Layout->TimestampOffset,
                                           8);
    Commit = TraceEventReadNumber(PageStart + Layout->CommitOffset,
                                  Layout->CommitSize);
    Size = Commit & TRACE_RING_COMMIT_MASK;

    if (Size > Capacity) {
        *Reason = "page commit size larger than the page";
        return RTL_STATUS_CORRUPT;
    }

    Page->Data = PageStart + Layout->DataOffset;
    Page->Size = (ULONG)Size;
    Page->Offset = 0;
    Page->LostEvents = 0;

    if (Commit & TRACE_RING_MISSED_EVENTS) {
        Page->LostEvents = -1;

        //
        // The count, when stored, follows the committed data.
        //

        if ((Commit & TRACE_RING_MISSED_STORED) &&
            Size + Layout->CommitSize <= Capacity) {
            Page->LostEvents = (LONGLONG)TraceEventReadNumber(
                Page->Data + Size, Layout->CommitSize);
            if (Page->LostEvents < 0) {
                Page->LostEvents = -1;
            }
        }
    }

    return RTL_STATUS_OK;
}

RTL_STATUS
TraceRingPageNext(
    PTRACE_RING_PAGE Page,
    PTRACE_RING_EVENT Event,
    PBOOL Found,
    PCSZ *Reason
    )
{
    const BYTE *Data = Page->Data;
    ULONG Size = Page->Size;

    *Found = FALSE;

    while (Page->Offset < Size) {
        ULONG Offset = Page->Offset;
        ULONG Header;
        ULONG TypeLen;
        ULONG Delta;
        ULONG Array;
        ULONG Length;

        if (Size - Offset < 4) {
            *Reason = "event header cut off by the page's commit size";
            return RTL_STATUS_CORRUPT;
        }

        Header = (ULONG)TraceEventReadNumber(Data + Offset, 4);
        TypeLen = Header & 0x1f;
        Delta = Header >> 5;

        switch (TypeLen) {
        case TRACE_RING_TYPE_PADDING:

            //
            // Padding (a discarded event): its length is in array[0].  A
            // null padding ends the page.
            //

            if (Size - Offset < 8) {
                Page->Offset = Size;
                return RTL_STATUS_OK;
            }
            Array = (ULONG)TraceEventReadNumber(Data + Offset + 4, 4);
            if (Delta == 0 && Array > Size - Offset - 4) {
                Page->Offset = Size;
                return RTL_STATUS_OK;
            }
            if (Array > Size - Offset - 4) {
                *Reason = "padding record runs past the page's commit size";
                return RTL_STATUS_CORRUPT;
            }
            Page->Timestamp += Delta;
            Page->Offset = Offset + 4 + ((Array + 3) & ~3U);
            if (Page->Offset <= Offset) {
                Page->Offset = Size;
            }
            continue;

        case TRACE_RING_TYPE_TIME_EXTEND:
        case TRACE_RING_TYPE_TIME_STAMP: {
            ULONGLONG Extend;

            if (Size - Offset < 8) {
                *Reason = "time extend record cut off by the commit size";
                return RTL_STATUS_CORRUPT;
            }
            Array = (ULONG)TraceEventReadNumber(Data + Offset + 4, 4);
            Extend = ((ULONGLONG)Array << TRACE_RING_TS_SHIFT) + Delta;
            if (TypeLen == TRACE_RING_TYPE_TIME_STAMP) {

                //
                // An absolute time stamp lacks the top five bits: keep
                // those of the running time.
                //

                Page->Timestamp = Extend |
                                  (Page->Timestamp & (0xf8ULL << 56));
            } else {
                Page->Timestamp += Extend;
            }
            Page->Offset = Offset + 8;
            continue;
        }

        case 0:
            if (Size - Offset < 8) {
                *Reason = "event length cut off by the page's commit size";
                return RTL_STATUS_CORRUPT;
            }
            Array = (ULONG)TraceEventReadNumber(Data + Offset + 4, 4);
            if (Array < 4) {
                *Reason = "event with a length shorter than its header";
                return RTL_STATUS_CORRUPT;
            }
            Length = ((Array - 4) + 3) & ~3U;
            if (Length > Size - Offset - 8) {
                *Reason = "event runs past the page's commit size";
                return RTL_STATUS_CORRUPT;
            }
            Event->Data = Data + Offset + 8;
            Page->Offset = Offset + 8 + Length;
            break;

        default:
            Length = TypeLen * 4;
            if (Length > Size - Offset - 4) {
                *Reason = "event runs past the page's commit size";
                return RTL_STATUS_CORRUPT;
            }
            Event->Data = Data + Offset + 4;
            Page->Offset = Offset + 4 + Length;
            break;
        }

        Page->Timestamp += Delta;
        Event->Timestamp = Page->Timestamp;
        Event->Size = Length;
        Event->Offset = Offset;
        *Found = TRUE;
        return RTL_STATUS_OK;
    }

    return RTL_STATUS_OK;
}
