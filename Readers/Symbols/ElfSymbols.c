/*++

Module Name:

    ElfSymbols.c

Abstract:

    Function symbols of a 64-bit little-endian ELF file by file offset
    (ElfSymbols.h says which symbols and how perf's rules are followed).
    Every header, section and symbol is checked against the file's size
    before it is read: a damaged or hostile file fails or yields fewer
    symbols, never a read outside it.

Environment:

    Core: no C runtime; the file through PRTL.

--*/

#include "ElfSymbols.h"

#define SHT_SYMTAB      2
#define SHT_NOTE        7
#define SHT_DYNSYM      11
#define STT_NOTYPE      0
#define STT_FUNC        2
#define STV_INTERNAL    1
#define STV_HIDDEN      2
#define SHF_EXECINSTR   0x4
#define STT_GNU_IFUNC   10
#define STB_LOCAL       0
#define STB_GLOBAL      1
#define STB_WEAK        2
#define NT_GNU_BUILD_ID 3
#define PT_LOAD         1
#define MAX_SYMBOLS     (1u << 24)

typedef struct _ELF_SECTION {
    ULONG Type;
    ULONG Link;
    ULONGLONG Address;
    ULONGLONG Offset;
    ULONGLONG Size;
    ULONGLONG EntrySize;
} ELF_SECTION, *PELF_SECTION;

//
// An image whose identification and section table were checked.
//

typedef struct _ELF_IMAGE {
    const BYTE *Data;
    SIZE_T Length;
    ULONGLONG Table;
    ULONG EntrySize;
    ULONG Count;
} ELF_IMAGE, *PELF_IMAGE;

static
BOOL
OpenImage(
    const BYTE *Data,
    SIZE_T Length,
    PELF_IMAGE Image
    )
{
    if (Data == NULL || Length < 64 || Data[0] != 0x7f || Data[1] != 'E' ||
        Data[2] != 'L' || Data[3] != 'F' || Data[4] != 2 || Data[5] != 1) {
        return FALSE;
    }
    Image->Data = Data;
    Image->Length = Length;
    Image->Table = RtlReadUInt64(Data + 0x28);
    Image->EntrySize = (ULONG)RtlReadUInt16(Data + 0x3a);
    Image->Count = (ULONG)RtlReadUInt16(Data + 0x3c);
    return Image->EntrySize >= 64 && Image->Table <= Length &&
           (ULONGLONG)Image->EntrySize * Image->Count <= Length - Image->Table;
}

static
BOOL
ReadSection(
    PELF_IMAGE Image,
    ULONG Index,
    PELF_SECTION Section
    )
/*++

Routine Description:

    Section Index's header; FALSE if there is none, or its contents do not
    lie in the file (a debug file's code sections hold none: SHT_NOBITS).

--*/
{
    const BYTE *Header;

    if (Index >= Image->Count) {
        return FALSE;
    }
    Header = Image->Data + Image->Table + (ULONGLONG)Index * Image->EntrySize;
    Section->Type = RtlReadUInt32(Header + 4);
    Section->Address = RtlReadUInt64(Header + 16);
    Section->Offset = RtlReadUInt64(Header + 24);
    Section->Size = RtlReadUInt64(Header + 32);
    Section->Link = RtlReadUInt32(Header + 40);
    Section->EntrySize = RtlReadUInt64(Header + 56);
    return Section->Offset <= Image->Length &&
           Section->Size <= Image->Length - Section->Offset;
}

static
VOID
ReadBuildId(
    PELF_IMAGE Image,
    PBYTE BuildId,
    PULONG BuildIdLength
    )
/*++

Routine Description:

    The GNU build id among the notes of the SHT_NOTE sections (name size,
    descriptor size, type, then the name and descriptor, each padded to
    4); *BuildIdLength 0 if none.

--*/
{
    ELF_SECTION Note;
    ULONG Section;

    *BuildIdLength = 0;
    for (Section = 0; Section < Image->Count; Section++) {
        const BYTE *Data;
        ULONGLONG Position = 0;

        if (!ReadSection(Image, Section, &Note) || Note.Type != SHT_NOTE) {
            continue;
        }
        Data = Image->Data + Note.Offset;
        while (Note.Size - Position >= 12) {
            ULONG NameSize = RtlReadUInt32(Data + Position);
            ULONG DescSize = RtlReadUInt32(Data + Position + 4);
            ULONG Type = RtlReadUInt32(Data + Position + 8);
            ULONGLONG NameEnd = Position + 12 + ((NameSize + 3ULL) & ~3ULL);
            ULONGLONG DescEnd = NameEnd + ((DescSize + 3ULL) & ~3ULL);

            if (NameEnd > Note.Size || DescEnd > Note.Size) {
                break;
            }
            if (Type == NT_GNU_BUILD_ID && NameSize == 4 &&
                Data[Position + 12] == 'G' && Data[Position + 13] == 'N' &&
                Data[Position + 14] == 'U' && Data[Position + 15] == 0 &&
                DescSize != 0) {
                ULONG Index;

                *BuildIdLength = DescSize < ELF_BUILD_ID_MAX ?
                                 DescSize : ELF_BUILD_ID_MAX;
                for (Index = 0; Index < *BuildIdLength; Index++) {
                    BuildId[Index] = Data[NameEnd + Index];
                }
                return;
            }
            Position = DescEnd;
        }
    }
}

static
VOID
ReadSegments(
    PELF_IMAGE Image,
    PELF_SYMBOLS Symbols
    )
/*++

Routine Description:

    The PT_LOAD segments: where each range of addresses lies in the file.

--*/
{
    const BYTE *Data = Image->Data;
    ULONGLONG Table = RtlReadUInt64(Data + 0x20);
    ULONG EntrySize = (ULONG)RtlReadUInt16(Data + 0x36);
    ULONG Count = (ULONG)RtlReadUInt16(Data + 0x38);
    ULONG Index;

    Symbols->SegmentCount = 0;
    if (EntrySize < 56 || Table > Image->Length ||
        (ULONGLONG)EntrySize * Count > Image->Length - Table) {
        return;
    }
    for (Index = 0; Index < Count &&
                    Symbols->SegmentCount < ELF_MAX_SEGMENTS; Index++) {
        const BYTE *Header = Data + Table + (ULONGLONG)Index * EntrySize;
        PELF_SEGMENT Segment = &Symbols->Segments[Symbols->SegmentCount];

        if (RtlReadUInt32(Header) != PT_LOAD) {
            continue;
        }
        Segment->Offset = RtlReadUInt64(Header + 8);
        Segment->Address = RtlReadUInt64(Header + 16);
        Segment->Size = RtlReadUInt64(Header + 40);
        Symbols->SegmentCount++;
    }
}

static
BOOL
FileOffset(
    const ELF_SYMBOLS *Symbols,
    ULONGLONG Address,
    PULONGLONG Offset
    )
{
    ULONG Index;

    for (Index = 0; Index < Symbols->SegmentCount; Index++) {
        const ELF_SEGMENT *Segment = &Symbols->Segments[Index];

        if (Address >= Segment->Address &&
            Address - Segment->Address < Segment->Size) {
            *Offset = Address - Segment->Address + Segment->Offset;
            return TRUE;
        }
    }
    return FALSE;
}

static
ULONG
Underscores(
    const ELF_SYMBOL *Symbol
    )
{
    ULONG Count = 0;

    while (Count < Symbol->Length && Symbol->Name[Count] == '_') {
        Count++;
    }
    return Count;
}

static
BOOL
Better(
    const ELF_SYMBOL *A,
    const ELF_SYMBOL *B
    )
/*++

Routine Description:

    TRUE if perf's choose_best_symbol keeps A rather than B (same start).

--*/
{
    BOOL SizedA = A->End != A->Start;
    BOOL SizedB = B->End != B->Start;
    ULONG BindingA = A->Binding & 15;
    ULONG BindingB = B->Binding & 15;

    if (SizedA != SizedB) {
        return SizedA;
    }
    if ((BindingA == STB_WEAK) != (BindingB == STB_WEAK)) {
        return BindingB == STB_WEAK;
    }
    if ((BindingA == STB_GLOBAL) != (BindingB == STB_GLOBAL)) {
        return BindingA == STB_GLOBAL;
    }
    if (Underscores(A) != Underscores(B)) {
        return Underscores(A) < Underscores(B);
    }
    return A->Length >= B->Length;
}

static
VOID
SiftDown(
    PELF_SYMBOL Array,
    ULONG Root,
    ULONG Count
    )
{
    for (;;) {
        ULONG Child = 2 * Root + 1;
        ELF_SYMBOL Swap;

        if (Child >= Count) {
            return;
        }
        if (Child + 1 < Count && Array[Child + 1].Start > Array[Child].Start) {
            Child++;
        }
        if (Array[Root].Start >= Array[Child].Start) {
            return;
        }
        Swap = Array[Root];
        Array[Root] = Array[Child];
        Array[Child] = Swap;
        Root = Child;
    }
}

static
VOID
SortByStart(
    PELF_SYMBOL Array,
    ULONG Count
    )
{
    ULONG Index;

    for (Index = Count / 2; Index-- > 0;) {
        SiftDown(Array, Index, Count);
    }
    for (Index = Count; Index-- > 1;) {
        ELF_SYMBOL Swap = Array[0];

        Array[0] = Array[Index];
        Array[Index] = Swap;
        SiftDown(Array, 0, Index);
    }
}

static
BOOL
FindNamedSection(
    PELF_IMAGE Image,
    PCSZ Name,
    PELF_SECTION Found
    )
/*++

Routine Description:

    The section called Name (by the section-name string table).

--*/
{
    ELF_SECTION Names;
    ELF_SECTION Section;
    ULONG Index;

    if (!ReadSection(Image, (ULONG)RtlReadUInt16(Image->Data + 0x3e),
                     &Names)) {
        return FALSE;
    }
    for (Index = 0; Index < Image->Count; Index++) {
        const BYTE *Header = Image->Data + Image->Table +
                             (ULONGLONG)Index * Image->EntrySize;
        ULONG NameOffset = RtlReadUInt32(Header);
        ULONG Length;

        if (NameOffset >= Names.Size) {
            continue;
        }
        for (Length = 0; Name[Length] != '\0'; Length++) {
            if (NameOffset + Length >= Names.Size ||
                Image->Data[Names.Offset + NameOffset + Length] !=
                (BYTE)Name[Length]) {
                break;
            }
        }
        if (Name[Length] == '\0' && NameOffset + Length < Names.Size &&
            Image->Data[Names.Offset + NameOffset + Length] == 0 &&
            ReadSection(Image, Index, &Section)) {
            *Found = Section;
            return TRUE;
        }
    }
    return FALSE;
}

typedef struct _ELF_PLT {
    ELF_SECTION Relocations;    // .rela.plt
    ELF_SECTION Symbols;        // the .dynsym it points into
    ELF_SECTION Strings;
    ULONGLONG First;            // file offset of the first entry
    ULONGLONG EntrySize;
    ULONGLONG Count;
} ELF_PLT, *PELF_PLT;

static
BOOL
FindPlt(
    PELF_IMAGE Image,
    PELF_PLT Plt
    )
/*++

Routine Description:

    x86-64's procedure linkage table as perf synthesizes its symbols
    (dso__synthesize_plt_symbols): one 16-byte entry per .rela.plt
    relocation, in .plt.sec when the file has one, else in .plt after its
    16-byte header, each named "SYMBOL@plt" after the relocation's symbol
    ("@plt" for one without a symbol: an IRELATIVE relocation's, as perf
    names it).

--*/
{
    ELF_SECTION Code;
    ULONGLONG Header = 0;

    if ((ULONG)RtlReadUInt16(Image->Data + 0x12) != 62 ||      // EM_X86_64
        !FindNamedSection(Image, ".rela.plt", &Plt->Relocations) ||
        Plt->Relocations.EntrySize < 24 ||
        !ReadSection(Image, Plt->Relocations.Link, &Plt->Symbols) ||
        Plt->Symbols.EntrySize < 24 ||
        !ReadSection(Image, Plt->Symbols.Link, &Plt->Strings)) {
        return FALSE;
    }
    if (!FindNamedSection(Image, ".plt.sec", &Code)) {
        if (!FindNamedSection(Image, ".plt", &Code)) {
            return FALSE;
        }
        Header = 16;
    }
    Plt->EntrySize = 16;
    Plt->First = Code.Offset + Header;
    Plt->Count = Plt->Relocations.Size / Plt->Relocations.EntrySize;
    if (Code.Size < Header ||
        Plt->Count > (Code.Size - Header) / Plt->EntrySize) {
        Plt->Count = (Code.Size - (Code.Size < Header ? Code.Size : Header)) /
                     Plt->EntrySize;
    }
    return TRUE;
}

static
ULONG
AddPltSymbols(
    PELF_IMAGE Image,
    const ELF_PLT *Plt,
    PELF_SYMBOL Symbols,
    ULONG Room
    )
{
    const BYTE *Data = Image->Data;
    ULONG Added = 0;
    ULONGLONG Index;

    for (Index = 0; Index < Plt->Count && Added < Room; Index++) {
        const BYTE *Relocation = Data + Plt->Relocations.Offset +
                                 Index * Plt->Relocations.EntrySize;
        ULONGLONG Symbol = RtlReadUInt64(Relocation + 8) >> 32;
        const BYTE *Entry;
        ULONG NameOffset;
        ULONG Length;

        if (Symbol >= Plt->Symbols.Size / Plt->Symbols.EntrySize) {
            continue;
        }
        Entry = Data + Plt->Symbols.Offset + Symbol * Plt->Symbols.EntrySize;
        NameOffset = RtlReadUInt32(Entry);
        for (Length = 0; NameOffset + Length < Plt->Strings.Size &&
                         Data[Plt->Strings.Offset + NameOffset + Length] != 0;
             Length++) {
        }
        if (NameOffset + Length >= Plt->Strings.Size) {
            continue;
        }
        Symbols[Added].Start = Plt->First + Index * Plt->EntrySize;
        Symbols[Added].End = Symbols[Added].Start + Plt->EntrySize;
        Symbols[Added].Name = (PCSZ)Data + Plt->Strings.Offset + NameOffset;
        Symbols[Added].Length = Length;
        Symbols[Added].Binding = STB_GLOBAL | ELF_SYMBOL_PLT;
        Added++;
    }
    return Added;
}

static
BOOL
FindSymbolTable(
    PELF_IMAGE Image,
    PELF_SECTION Table,
    PELF_SECTION Strings
    )
/*++

Routine Description:

    .symtab if the image has one, else .dynsym, and its string table.

--*/
{
    ELF_SECTION Section;
    BOOL Found = FALSE;
    ULONG Index;

    for (Index = 0; Index < Image->Count; Index++) {
        if (!ReadSection(Image, Index, &Section)) {
            continue;
        }
        if (Section.Type == SHT_SYMTAB) {
            *Table = Section;
            Found = TRUE;
            break;
        }
        if (Section.Type == SHT_DYNSYM && !Found) {
            *Table = Section;
            Found = TRUE;
        }
    }
    return Found && Table->EntrySize >= 24 &&
           ReadSection(Image, Table->Link, Strings);
}

static
BOOL
IsCodeLabel(
    PELF_IMAGE Image,
    const BYTE *Entry
    )
/*++

Routine Description:

    TRUE if symbol Entry of Image is a label perf takes as a function: an
    STT_NOTYPE symbol (an assembly label, such as ld.so's _start) in a
    section of code (SHF_EXECINSTR), neither absolute nor hidden or
    internal.  perf's dso__load_sym() keeps these; its samples at ld.so's
    entry are named _start.

--*/
{
    ULONG SectionIndex = RtlReadUInt16(Entry + 6);
    const BYTE *Header;

    if ((Entry[4] & 15) != STT_NOTYPE || SectionIndex == 0 ||
        SectionIndex >= Image->Count || (Entry[5] & 3) == STV_INTERNAL ||
        (Entry[5] & 3) == STV_HIDDEN) {
        return FALSE;
    }
    Header = Image->Data + Image->Table +
             (ULONGLONG)SectionIndex * Image->EntrySize;
    return (RtlReadUInt64(Header + 8) & SHF_EXECINSTR) != 0;
}

static
RTL_STATUS
ReadSymbols(
    PRTL Rtl,
    PELF_IMAGE Image,
    const ELF_SECTION *Table,
    const ELF_SECTION *Strings,
    PELF_IMAGE Runtime,
    PELF_SYMBOLS Symbols
    )
/*++

Routine Description:

    The function symbols of Table (in Image: the file or its debug file),
    and the PLT entries of the file itself (Runtime).

--*/
{
    const BYTE *Data = Image->Data;
    ULONGLONG SymbolCount = Table != NULL ? Table->Size / Table->EntrySize : 0;
    ULONGLONG Index;
    ULONG Kept = 0;
    ULONG Count;
    ELF_PLT Plt;
    BOOL HavePlt = FindPlt(Runtime, &Plt);
    RTL_STATUS Status;

    if (SymbolCount > MAX_SYMBOLS) {
        SymbolCount = MAX_SYMBOLS;
    }
    if (HavePlt && Plt.Count > MAX_SYMBOLS) {
        Plt.Count = MAX_SYMBOLS;
    }
    if (SymbolCount + (HavePlt ? Plt.Count : 0) == 0) {
        return RTL_STATUS_OK;
    }
    Symbols->SymbolBytes = ALIGN_UP((SIZE_T)(SymbolCount +
                                             (HavePlt ? Plt.Count : 0)) *
                                    sizeof(ELF_SYMBOL), RTL_PAGE_SIZE);
    Status = Rtl->AllocatePages(Rtl, Symbols->SymbolBytes,
                                (PVOID *)&Symbols->Symbols);
    if (!RTL_SUCCESS(Status)) {
        Symbols->Symbols = NULL;
        Symbols->SymbolBytes = 0;
        return Status;
    }

    for (Index = 0; Index < SymbolCount; Index++) {
        const BYTE *Entry = Data + Table->Offset + Index * Table->EntrySize;
        ULONG Info = Entry[4];
        ULONG NameOffset = RtlReadUInt32(Entry);
        ULONGLONG Value = RtlReadUInt64(Entry + 8);
        ULONGLONG Start;
        PELF_SYMBOL Symbol;
        ULONG NameLength;

        if ((((Info & 15) != STT_FUNC && (Info & 15) != STT_GNU_IFUNC) &&
             !IsCodeLabel(Image, Entry)) ||
            (ULONG)RtlReadUInt16(Entry + 6) == 0 || Value == 0 ||
            NameOffset >= Strings->Size ||
            !FileOffset(Symbols, Value, &Start)) {
            continue;
        }
        for (NameLength = 0;
             NameOffset + NameLength < Strings->Size &&
             Data[Strings->Offset + NameOffset + NameLength] != 0;
             NameLength++) {
        }
        if (NameOffset + NameLength >= Strings->Size || NameLength == 0) {
            continue;
        }
        Symbol = &Symbols->Symbols[Kept++];
        Symbol->Start = Start;
        Symbol->End = Start + RtlReadUInt64(Entry + 16);
        Symbol->Name = (PCSZ)Data + Strings->Offset + NameOffset;
        Symbol->Length = NameLength;
        Symbol->Binding = Info >> 4;
    }
    if (HavePlt) {
        Kept += AddPltSymbols(Runtime, &Plt, Symbols->Symbols + Kept,
                              (ULONG)Plt.Count);
    }

    //
    // Sorted, one per start, and sizeless ones ending at the next start.
    //

    SortByStart(Symbols->Symbols, Kept);
    Count = 0;
    for (Index = 0; Index < Kept; Index++) {
        PELF_SYMBOL Symbol = &Symbols->Symbols[Index];

        if (Count != 0 && Symbols->Symbols[Count - 1].Start == Symbol->Start) {
            if (Better(Symbol, &Symbols->Symbols[Count - 1])) {
                Symbols->Symbols[Count - 1] = *Symbol;
            }
            continue;
        }
        Symbols->Symbols[Count++] = *Symbol;
    }
    for (Index = 0; Index < Count; Index++) {
        PELF_SYMBOL Symbol = &Symbols->Symbols[Index];

        if (Symbol->End == Symbol->Start) {
            Symbol->End = Index + 1 < Count ?
                          Symbols->Symbols[Index + 1].Start :
                          ALIGN_UP(Symbol->Start, 4096) + 4096;
        }
    }
    Symbols->Count = Count;
    return RTL_STATUS_OK;
}

RTL_STATUS
ElfSymbolsParse(
    PRTL Rtl,
    const BYTE *Data,
    SIZE_T Length,
    const BYTE *Debug,
    SIZE_T DebugLength,
    const BYTE *BuildId,
    ULONG BuildIdLength,
    PELF_SYMBOLS Symbols
    )
{
    ELF_IMAGE Image;
    ELF_IMAGE DebugImage;
    ELF_SECTION Table, Strings;
    BYTE DebugId[ELF_BUILD_ID_MAX];
    ULONG DebugIdLength;

    Symbols->Rtl = Rtl;
    Symbols->Symbols = NULL;
    Symbols->Count = 0;
    Symbols->SymbolBytes = 0;
    Symbols->BuildIdLength = 0;
    Symbols->SegmentCount = 0;

    if (!OpenImage(Data, Length, &Image)) {
        return RTL_STATUS_BAD_FORMAT;
    }
    ReadBuildId(&Image, Symbols->BuildId, &Symbols->BuildIdLength);
    if (BuildId != NULL &&
        (BuildIdLength == 0 || Symbols->BuildIdLength < BuildIdLength ||
         Rtl->CompareMemory(Symbols->BuildId, BuildId, BuildIdLength) != 0)) {
        return RTL_STATUS_BAD_VERSION;
    }
    ReadSegments(&Image, Symbols);

    //
    // The debug file's symbols, when it is this file's (same build id).
    //

    if (OpenImage(Debug, DebugLength, &DebugImage)) {
        ReadBuildId(&DebugImage, DebugId, &DebugIdLength);
        if (DebugIdLength != 0 && DebugIdLength == Symbols->BuildIdLength &&
            Rtl->CompareMemory(DebugId, Symbols->BuildId,
                               DebugIdLength) == 0 &&
            FindSymbolTable(&DebugImage, &Table, &Strings)) {
            return ReadSymbols(Rtl, &DebugImage, &Table, &Strings, &Image,
                               Symbols);
        }
    }
    if (!FindSymbolTable(&Image, &Table, &Strings)) {
        return ReadSymbols(Rtl, &Image, NULL, NULL, &Image, Symbols);
    }
    return ReadSymbols(Rtl, &Image, &Table, &Strings, &Image, Symbols);
}

static
RTL_STATUS
MapWhole(
    PRTL Rtl,
    PCSZ Path,
    PVOID *Mapping,
    PSIZE_T Size
    )
{
    HANDLE Handle;
    ULONGLONG FileSize;
    RTL_STATUS Status;

    *Mapping = NULL;
    *Size = 0;
    Status = Rtl->OpenFile(Rtl, Path, RtlOpenReadOnly, &Handle);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }
    Status = Rtl->GetFileSize(Rtl, Handle, &FileSize);
    if (RTL_SUCCESS(Status) && (FileSize < 64 || FileSize > (1ULL << 34))) {
        Status = RTL_STATUS_BAD_FORMAT;
    }
    if (RTL_SUCCESS(Status)) {
        Status = Rtl->MapFile(Rtl, Handle, 0, (SIZE_T)FileSize, FALSE, NULL,
                              Mapping);
    }
    Rtl->CloseFile(Rtl, Handle);
    if (RTL_SUCCESS(Status)) {
        *Size = (SIZE_T)FileSize;
    } else {
        *Mapping = NULL;
    }
    return Status;
}

RTL_STATUS
ElfSymbolsLoad(
    PRTL Rtl,
    PCSZ Path,
    const BYTE *BuildId,
    ULONG BuildIdLength,
    PELF_SYMBOLS Symbols
    )
{
    static const CHAR Hex[] = "0123456789abcdef";
    ELF_IMAGE Image;
    BYTE FileId[ELF_BUILD_ID_MAX];
    ULONG FileIdLength = 0;
    CHAR DebugPath[96];
    RTL_STATUS Status;

    Symbols->Rtl = Rtl;
    Symbols->DebugMapping = NULL;
    Symbols->DebugMappingSize = 0;
    Symbols->Symbols = NULL;
    Symbols->SymbolBytes = 0;
    Symbols->Count = 0;

    Status = MapWhole(Rtl, Path, &Symbols->Mapping, &Symbols->MappingSize);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    if (OpenImage(Symbols->Mapping, Symbols->MappingSize, &Image)) {
        ReadBuildId(&Image, FileId, &FileIdLength);
    }
    if (FileIdLength >= 2) {
        ULONG Index;
        ULONG At = (ULONG)RtlFormat(DebugPath, sizeof(DebugPath),
                                    "/usr/lib/debug/.build-id/%c%c/",
                                    Hex[FileId[0] >> 4], Hex[FileId[0] & 15]);

        for (Index = 1; Index < FileIdLength; Index++) {
            DebugPath[At++] = Hex[FileId[Index] >> 4];
            DebugPath[At++] = Hex[FileId[Index] & 15];
        }
        RtlFormat(DebugPath + At, sizeof(DebugPath) - At, ".debug");
        MapWhole(Rtl, DebugPath, &Symbols->DebugMapping,
                 &Symbols->DebugMappingSize);
    }

    Status = ElfSymbolsParse(Rtl, Symbols->Mapping, Symbols->MappingSize,
                             Symbols->DebugMapping, Symbols->DebugMappingSize,
                             BuildId, BuildIdLength, Symbols);
    if (!RTL_SUCCESS(Status)) {
        ElfSymbolsRelease(Symbols);
    }
    return Status;
}

VOID
ElfSymbolsRelease(
    PELF_SYMBOLS Symbols
    )
{
    PRTL Rtl = Symbols->Rtl;

    if (Symbols->Symbols != NULL) {
        Rtl->Unmap(Rtl, Symbols->Symbols, Symbols->SymbolBytes);
        Symbols->Symbols = NULL;
    }
    if (Symbols->Mapping != NULL) {
        Rtl->Unmap(Rtl, Symbols->Mapping, Symbols->MappingSize);
        Symbols->Mapping = NULL;
    }
    if (Symbols->DebugMapping != NULL) {
        Rtl->Unmap(Rtl, Symbols->DebugMapping, Symbols->DebugMappingSize);
        Symbols->DebugMapping = NULL;
    }
    Symbols->Count = 0;
}

const ELF_SYMBOL *
ElfSymbolsFind(
    const ELF_SYMBOLS *Symbols,
    ULONGLONG Offset
    )
{
    ULONG Low = 0;
    ULONG High = Symbols->Count;

    while (Low < High) {
        ULONG Middle = Low + (High - Low) / 2;

        if (Symbols->Symbols[Middle].Start <= Offset) {
            Low = Middle + 1;
        } else {
            High = Middle;
        }
    }
    if (Low == 0 || Offset >= Symbols->Symbols[Low - 1].End) {
        return NULL;
    }
    return &Symbols->Symbols[Low - 1];
}
