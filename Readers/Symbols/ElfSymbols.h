/*++

Module Name:

    ElfSymbols.h

Abstract:

    The function symbols of an ELF file (64-bit, little-endian: x86-64 and
    arm64 Linux), found by file offset: the place a sampled address has in
    its mapped file (address - mapping start + file offset), which is how
    perf report looks symbols up (map__map_ip).

    The symbols come from the file's detached debug file when this
    machine has one for its build id
    (/usr/lib/debug/.build-id/XX/REST.debug, as perf and gdb look), else
    from the file: .symtab when it has one, else .dynsym; STT_FUNC and
    STT_GNU_IFUNC symbols defined in a section.  A symbol's address
    becomes a file offset through the file's PT_LOAD segments (a debug
    file's sections hold no code, its addresses are the file's).  As perf
    does (util/symbol.c): a symbol without a size ends where the next one
    starts, and of symbols starting at one address the one perf's
    choose_best_symbol picks is kept (a sized one, then a non-weak, a
    global, the fewest leading underscores, the longest name).
    perf's synthesized PLT symbols are added (x86-64: "NAME@plt" for
    each .rela.plt entry).  Names are not demangled.

Environment:

    Core: no C runtime; the file through PRTL (mapped read-only while the
    table lives).  Used by readers that symbolize code addresses (the
    perf.data reader).

--*/

#ifndef _TRACER_ELF_SYMBOLS_H_
#define _TRACER_ELF_SYMBOLS_H_

#include "Rtl/Rtl.h"

#define ELF_BUILD_ID_MAX 20

#define ELF_SYMBOL_PLT 0x100    // in Binding: a PLT entry, named NAME@plt

typedef struct _ELF_SYMBOL {
    ULONGLONG Start;        // file offset
    ULONGLONG End;          // first offset after it
    PCSZ Name;              // in the mapped file
    ULONG Length;
    ULONG Binding;          // STB_*, and ELF_SYMBOL_PLT
} ELF_SYMBOL, *PELF_SYMBOL;

#define ELF_MAX_SEGMENTS 16

typedef struct _ELF_SEGMENT {
    ULONGLONG Address;      // p_vaddr
    ULONGLONG Size;         // p_memsz
    ULONGLONG Offset;       // p_offset
} ELF_SEGMENT, *PELF_SEGMENT;

typedef struct _ELF_SYMBOLS {
    PRTL Rtl;
    PVOID Mapping;
    SIZE_T MappingSize;
    PVOID DebugMapping;     // the detached debug file, or NULL
    SIZE_T DebugMappingSize;
    ULONG SegmentCount;
    ULONG Padding;
    ELF_SEGMENT Segments[ELF_MAX_SEGMENTS];
    PELF_SYMBOL Symbols;    // sorted by Start, one per start
    ULONG Count;
    ULONG BuildIdLength;
    SIZE_T SymbolBytes;
    BYTE BuildId[ELF_BUILD_ID_MAX];
} ELF_SYMBOLS, *PELF_SYMBOLS;

//
// Loads the function symbols of the ELF file at Path.  When BuildId is
// not NULL the file's GNU build id must equal it (else
// RTL_STATUS_BAD_VERSION: the file changed since the recording).  Fails
// with RTL_STATUS_BAD_FORMAT for a file that is not a 64-bit
// little-endian ELF file or whose headers do not fit it.
//

RTL_STATUS ElfSymbolsLoad(PRTL Rtl, PCSZ Path, const BYTE *BuildId,
                          ULONG BuildIdLength, PELF_SYMBOLS Symbols);

VOID ElfSymbolsRelease(PELF_SYMBOLS Symbols);

//
// The symbol holding file offset Offset, or NULL.
//

const ELF_SYMBOL *ElfSymbolsFind(const ELF_SYMBOLS *Symbols,
                                 ULONGLONG Offset);

//
// The same checks and table over ELF images already in memory (tests and
// fuzzing): Image, and Debug when not NULL (its symbols are used), must
// outlive the table.
//

RTL_STATUS ElfSymbolsParse(PRTL Rtl, const BYTE *Image, SIZE_T Length,
                           const BYTE *Debug, SIZE_T DebugLength,
                           const BYTE *BuildId, ULONG BuildIdLength,
                           PELF_SYMBOLS Symbols);

#endif // _TRACER_ELF_SYMBOLS_H_
