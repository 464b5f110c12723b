/*++

Module Name:

    EtwFrame.c

Abstract:

    This module frames the events of one .etl buffer (EtwFormat.h): it
    reads the header of the event at an offset, checks its size against
    what is left of the buffer, and says where the payload is and where
    the next event starts.  It also recognizes the start of an .etl file
    for format detection.

Environment:

    Core: no C runtime, no OS service.  Called by Etw.c.

--*/

#include "EtwFormat.h"

RTL_STATUS
EtwFrameEvent(
    const BYTE *Payload,
    ULONG Length,
    ULONG Offset,
    PETW_EVENT Event,
    PULONG Next,
    PCSZ *Reason
    )
/*++

Routine Description:

    Frames the event at Payload + Offset.  Offset is 8-byte aligned and
    below Length.

Arguments:

    Payload, Length - the buffer's events (after its 72-byte header).

    Offset - where the event starts.

    Event - receives the event's header fields and payload.

    Next - receives the offset of the next event (Length at the end).

    Reason - on failure, what is wrong with the event.

Return Value:

    RTL_STATUS_OK, or RTL_STATUS_BAD_FORMAT.

--*/
{
    const BYTE *Bytes = Payload + Offset;
    ULONG Left = Length - Offset;
    ULONG HeaderSize;
    ULONG Size;
    ULONG End;

    if (Left < 4) {
        *Reason = "the buffer ends inside an event header";
        return RTL_STATUS_BAD_FORMAT;
    }

    if ((Bytes[3] & ETW_HEADER_MARKER_FLAGS) != ETW_HEADER_MARKER_FLAGS) {
        *Reason = "not an event header (marker flags are not 0xC0)";
        return RTL_STATUS_BAD_FORMAT;
    }

    Event->HeaderType = Bytes[2];
    Event->Guid = NULL;
    Event->Id = 0;
    Event->Padding = 0;
    Event->Offset = Offset;

    switch (Bytes[2]) {
    case ETW_HEADER_SYSTEM32:
    case ETW_HEADER_SYSTEM64:
        HeaderSize = ETW_SYSTEM_HEADER_SIZE;
        goto Classic;

    case ETW_HEADER_COMPACT32:
    case ETW_HEADER_COMPACT64:
        HeaderSize = ETW_COMPACT_HEADER_SIZE;
        goto Classic;

    case ETW_HEADER_PERFINFO32:
    case ETW_HEADER_PERFINFO64:
        HeaderSize = ETW_PERFINFO_HEADER_SIZE;
    Classic:
        if (Left < HeaderSize) {
            *Reason = "the buffer ends inside an event header";
            return RTL_STATUS_BAD_FORMAT;
        }
        Size = EtwLoad16(Bytes + 4);
        Event->Kind = EtwEventClassic;
        Event->Is64 = (Bytes[2] == ETW_HEADER_SYSTEM64 ||
                       Bytes[2] == ETW_HEADER_COMPACT64 ||
                       Bytes[2] == ETW_HEADER_PERFINFO64);
        Event->Version = (USHORT)EtwLoad16(Bytes);
        Event->Type = Bytes[6];
        Event->Group = Bytes[7];
        if (HeaderSize == ETW_PERFINFO_HEADER_SIZE) {
            Event->ThreadId = TRACE_NULL_ULONG;
            Event->ProcessId = TRACE_NULL_ULONG;
            Event->RawTime = (LONGLONG)EtwLoad64(Bytes + 8);
        } else {
            Event->ThreadId = EtwLoad32(Bytes + 8);
            Event->ProcessId = EtwLoad32(Bytes + 12);
            Event->RawTime = (LONGLONG)EtwLoad64(Bytes + 16);
        }
        break;

    case ETW_HEADER_EVENT32:
    case ETW_HEADER_EVENT64:
        HeaderSize = ETW_EVENT_HEADER_SIZE;
        if (Left < HeaderSize) {
            *Reason = "the buffer ends inside an event header";
            return RTL_STATUS_BAD_FORMAT;
        }
        Size = EtwLoad16(Bytes);
        Event->Kind = EtwEventManifest;
        Event->Is64 = (Bytes[2] == ETW_HEADER_EVENT64);
        Event->ThreadId = EtwLoad32(Bytes + 8);
        Event->ProcessId = EtwLoad32(Bytes + 12);
        Event->RawTime = (LONGLONG)EtwLoad64(Bytes + 16);
        Event->Guid = Bytes + FIELD_OFFSET(ETW_EVENT_HEADER, ProviderId);
        Event->Id = (USHORT)EtwLoad16(Bytes + FIELD_OFFSET(ETW_EVENT_HEADER,
                                                           Id));
        Event->Version = Bytes[FIELD_OFFSET(ETW_EVENT_HEADER, Version)];
        Event->Type = Bytes[FIELD_OFFSET(ETW_EVENT_HEADER, Opcode)];
        Event->Group = 0;
        break;

    case ETW_HEADER_FULL32:
    case ETW_HEADER_FULL64:
        HeaderSize = ETW_FULL_HEADER_SIZE;
        if (Left < HeaderSize) {
            *Reason = "the buffer ends inside an event header";
            return RTL_STATUS_BAD_FORMAT;
        }
        Size = EtwLoad16(Bytes);
        Event->Kind = EtwEventTrace;
        Event->Is64 = (Bytes[2] == ETW_HEADER_FULL64);
        Event->ThreadId = EtwLoad32(Bytes + 8);
        Event->ProcessId = EtwLoad32(Bytes + 12);
        Event->RawTime = (LONGLONG)EtwLoad64(Bytes + 16);
        Event->Guid = Bytes + FIELD_OFFSET(ETW_FULL_HEADER, Guid);
        Event->Type = Bytes[FIELD_OFFSET(ETW_FULL_HEADER, Type)];
        Event->Version = (USHORT)EtwLoad16(Bytes +
                                           FIELD_OFFSET(ETW_FULL_HEADER,
                                                        Version));
        Event->Group = 0;
        break;

    default:
        *Reason = "an unknown event header type";
        return RTL_STATUS_BAD_FORMAT;
    }

    if (Size < HeaderSize) {
        *Reason = "an event smaller than its header";
        return RTL_STATUS_BAD_FORMAT;
    }
    if (Size > Left) {
        *Reason = "an event running past the end of its buffer";
        return RTL_STATUS_BAD_FORMAT;
    }

    Event->Payload = Bytes + HeaderSize;
    Event->PayloadLength = Size - HeaderSize;

    End = Offset + ((Size + 7) & ~7u);
    *Next = (End > Length) ? Length : End;
    return RTL_STATUS_OK;
}

BOOL
EtwLooksLikeLog(
    const BYTE *Buffer,
    SIZE_T Length
    )
/*++

Routine Description:

    An .etl file starts with an uncompressed buffer whose first event is a
    system header (32 or 64-bit) of group 0, type 0: the log file header.

--*/
{
    ULONG BufferSize;
    ULONG SavedOffset;
    const BYTE *First = Buffer + ETW_BUFFER_HEADER_SIZE;

    if (Buffer == NULL ||
        Length < ETW_BUFFER_HEADER_SIZE + ETW_SYSTEM_HEADER_SIZE) {
        return FALSE;
    }

    BufferSize = EtwLoad32(Buffer);
    SavedOffset = EtwLoad32(Buffer + 4);
    if (SavedOffset < ETW_BUFFER_HEADER_SIZE + ETW_SYSTEM_HEADER_SIZE ||
        SavedOffset > BufferSize ||
        (EtwLoad16(Buffer + 52) & ETW_BUFFER_FLAG_COMPRESSED) != 0) {
        return FALSE;
    }

    return (First[2] == ETW_HEADER_SYSTEM32 ||
            First[2] == ETW_HEADER_SYSTEM64) &&
           (First[3] & ETW_HEADER_MARKER_FLAGS) == ETW_HEADER_MARKER_FLAGS &&
           First[6] == 0 && First[7] == ETW_GROUP_HEADER &&
           EtwLoad16(First + 4) >= ETW_SYSTEM_HEADER_SIZE;
}
