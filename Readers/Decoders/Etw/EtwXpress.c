/*++

Module Name:

    EtwXpress.c

Abstract:

    This module decompresses MS-XCA plain LZ77 ("XPRESS", what
    RtlDecompressBuffer calls COMPRESSION_FORMAT_XPRESS), the compression
    of .etl buffers with BufferFlag 0x40: 32-bit flag words, one bit per
    item from the top, 0 a literal byte and 1 a 16-bit match (length in the
    low 3 bits, offset - 1 above), with longer lengths in a shared half
    byte, then a byte, then 16 or 32 bits (MS-XCA section 2.4.4).

    Every read is checked against the input and every write against the
    output: damaged data gives an error with the input offset, never an
    access outside either buffer.

Environment:

    Core: no C runtime, no OS service.  Called by Etw.c for each
    compressed buffer.

--*/

#include "EtwFormat.h"

RTL_STATUS
EtwXpressDecompress(
    const BYTE *Input,
    SIZE_T InputLength,
    PBYTE Output,
    SIZE_T OutputLength,
    PSIZE_T ErrorOffset,
    PCSZ *Reason
    )
/*++

Routine Description:

    Decompresses Input into exactly OutputLength bytes of Output.  The
    stream ends where its input ends (a flag word may announce items that
    never come, as the format allows).

Arguments:

    Input, InputLength - the compressed bytes.

    Output, OutputLength - where they go, and how many there must be.

    ErrorOffset, Reason - on failure, the input offset and what was wrong.

Return Value:

    RTL_STATUS_OK, or RTL_STATUS_BAD_FORMAT.

--*/
{
    SIZE_T In = 0;
    SIZE_T Out = 0;
    SIZE_T HalfByte = 0;
    BOOL HaveHalfByte = FALSE;
    ULONG Flags = 0;
    ULONG FlagCount = 0;
    SIZE_T Length;
    SIZE_T Distance;
    SIZE_T Item;
    ULONG Word;
    ULONG Rest;
    ULONG Run;

    for (;;) {
        if (FlagCount == 0) {
            if (InputLength - In < 4) {
                break;
            }
            Flags = EtwLoad32(Input + In);
            In += 4;
            FlagCount = 32;
        }
        FlagCount--;

        if (((Flags >> FlagCount) & 1) == 0) {

            //
            // A run of literals: this one and the zero flags after it, as
            // far as the input goes.
            //

            Rest = Flags & ((1u << FlagCount) - 1);
            Run = 1 + ((Rest == 0) ? FlagCount :
                       FlagCount - 1 - (31 - (ULONG)__builtin_clz(Rest)));
            if (Run > InputLength - In) {
                Run = (ULONG)(InputLength - In);
            }
            if (Run == 0) {
                break;
            }
            if (Run > OutputLength - Out) {
                *ErrorOffset = In + (OutputLength - Out);
                *Reason = "decompresses to more bytes than the buffer "
                          "header's SavedOffset";
                return RTL_STATUS_BAD_FORMAT;
            }
            __builtin_memcpy(Output + Out, Input + In, Run);
            Out += Run;
            In += Run;
            FlagCount -= Run - 1;
            continue;
        }

        if (InputLength - In < 2) {
            break;
        }

        Item = In;
        Word = EtwLoad16(Input + In);
        In += 2;
        Length = Word & 7;
        Distance = (Word >> 3) + 1;

        if (Length == 7) {
            if (!HaveHalfByte) {
                if (In >= InputLength) {
                    goto Cut;
                }
                Length = Input[In] & 15;
                HalfByte = In;
                HaveHalfByte = TRUE;
                In++;
            } else {
                Length = Input[HalfByte] >> 4;
                HaveHalfByte = FALSE;
            }

            if (Length == 15) {
                if (In >= InputLength) {
                    goto Cut;
                }
                Length = Input[In++];
                if (Length == 255) {
                    if (InputLength - In < 2) {
                        goto Cut;
                    }
                    Length = EtwLoad16(Input + In);
                    In += 2;
                    if (Length == 0) {
                        if (InputLength - In < 4) {
                            goto Cut;
                        }
                        Length = EtwLoad32(Input + In);
                        In += 4;
                    }
                    if (Length < 15 + 7) {
                        *ErrorOffset = Item;
                        *Reason = "a match length below its minimum";
                        return RTL_STATUS_BAD_FORMAT;
                    }
                    Length -= 15 + 7;
                }
                Length += 15;
            }
            Length += 7;
        }
        Length += 3;

        if (Distance > Out) {
            *ErrorOffset = Item;
            *Reason = "a match reaching before the start of the buffer";
            return RTL_STATUS_BAD_FORMAT;
        }
        if (Length > OutputLength - Out) {
            *ErrorOffset = Item;
            *Reason = "decompresses to more bytes than the buffer "
                      "header's SavedOffset";
            return RTL_STATUS_BAD_FORMAT;
        }

        //
        // Overlapping copies repeat the last Distance bytes: byte by byte
        // when they overlap within a word, a word at a time otherwise.
        //

        if (Distance >= 8) {
            PBYTE To = Output + Out;
            const BYTE *From = To - Distance;
            SIZE_T Left = Length;

            while (Left >= 8) {
                ULONGLONG Chunk;

                __builtin_memcpy(&Chunk, From, 8);
                __builtin_memcpy(To, &Chunk, 8);
                From += 8;
                To += 8;
                Left -= 8;
            }
            while (Left-- != 0) {
                *To++ = *From++;
            }
        } else {
            SIZE_T Index;

            for (Index = 0; Index < Length; Index++) {
                Output[Out + Index] = Output[Out + Index - Distance];
            }
        }
        Out += Length;
    }

    if (Out != OutputLength) {
        *ErrorOffset = In;
        *Reason = "decompresses to fewer bytes than the buffer header's "
                  "SavedOffset";
        return RTL_STATUS_BAD_FORMAT;
    }

    return RTL_STATUS_OK;

Cut:
    *ErrorOffset = Item;
    *Reason = "the compressed data ends inside a match";
    return RTL_STATUS_BAD_FORMAT;
}
