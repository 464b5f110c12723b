/*
** Unit tests of the trace.dat reader's parts that trace-cmd report cannot
** check directly.
**
**   TestTraceDat nozstd FILE SESSION   a zstd trace.dat imported with no
**                                      decompressor (as the -nostdlib core
**                                      is) fails with a clear error
**   TestTraceDat printf                TraceTextFormatNumber against the
**                                      C library's snprintf
**   TestTraceDat ringpage              hand-built ring-buffer pages: time
**                                      extends, absolute time stamps,
**                                      padding, long records, a stored
**                                      lost-events count, bad commits
**   TestTraceDat kallsyms              symbol lookups in a hand-written
**                                      kallsyms whose lines take the
**                                      indexer's fast path (16 hex digits,
**                                      either case, a name then newline or
**                                      tab) and its general one (short
**                                      addresses, blanks, CRLF, bad digits,
**                                      no final newline); expected symbols
**                                      worked out by hand from trace-cmd's
**                                      rules (sorted by address, later
**                                      line first at one address, the
**                                      bisection's pick, the last symbol
**                                      only exactly)
**   TestTraceDat typesize              TraceEventTypeSize against this
**                                      host's C compiler (LP64: sizeof of
**                                      the same types) and the ILP32 sizes
**                                      for a 4-byte long; a dynamic
**                                      array's element size and print
**                                      fmt's sizeof agree on size_t
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "Readers/Decoders/Ftrace/TraceEvent.h"
#include "Readers/TraceFormats.h"

static RTL Rtl;
static int nFail = 0;

#define CHECK(x) do{ if(!(x)){ printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #x); nFail++; } }while(0)

static int testNoZstd(const char *zPath, const char *zSession){
  PTRACE_SESSION pSession = calloc(1, sizeof(*pSession));
  TRACE_IMPORT imp;
  RTL_ERROR err;
  RTL_STATUS rc;
  char zWant[600];

  if( !RTL_SUCCESS(TraceSessionOpenWriter(&Rtl, zSession, pSession, &err)) ){
    printf("%s\n", err.Message);
    return 1;
  }
  memset(&imp, 0, sizeof(imp));
  imp.Rtl = &Rtl;
  imp.Session = pSession;
  imp.Path = zPath;
  imp.Zstd = 0;
  rc = TraceImportRun(&imp, 0, TraceFormats);
  CHECK( imp.FormatName!=0 && strcmp(imp.FormatName, "trace-dat")==0 );
  printf("%s\n", imp.Error.Message);
  CHECK( rc==RTL_STATUS_BAD_VERSION );
  snprintf(zWant, sizeof(zWant), "%s: offset ", zPath);
  CHECK( strncmp(imp.Error.Message, zWant, strlen(zWant))==0 );
  CHECK( strstr(imp.Error.Message, "compressed with zstd")!=0 );
  CHECK( strstr(imp.Error.Message, "no zstd decompressor")!=0 );
  CHECK( imp.Events==0 );
  TraceSessionClose(pSession);
  free(pSession);
  return nFail!=0;
}

static int testPrintf(void){
  static const char *azSpec[] = {
    "%d", "%u", "%x", "%X", "%o", "%c", "%5d", "%-5d|", "%05d", "%+d", "% d",
    "%.3d", "%8.3d", "%#x", "%#o", "%#X", "%08x", "%-8x|", "%ld", "%lu",
    "%lx", "%lld", "%llu", "%llx", "%016llx", "%hd", "%hu", "%hx", "%hhd",
    "%hhu", "%hhx", "%zu", "%zd", "%3c", "%-3c|", "%.0d", "%#.0x", "%i",
    "%03llu", "%+5ld",
  };
  static const unsigned long long aVal[] = {
    0, 1, 7, 42, 255, 256, 65535, 65536, 0x7fffffff, 0x80000000ULL,
    0xffffffffULL, 0x100000000ULL, 0x8000000000000000ULL, ~0ULL,
    (unsigned long long)-42LL, (unsigned long long)-1234567LL, 0x41,
  };
  unsigned i, j, n = 0;
  for(i=0; i<sizeof(azSpec)/sizeof(azSpec[0]); i++){
    const char *z = azSpec[i];
    size_t nConv = strcspn(z + 1, "diouxXc") + 2;
    for(j=0; j<sizeof(aVal)/sizeof(aVal[0]); j++){
      unsigned long long v = aVal[j];
      char zWant[128], zGot[128];
      int nLen = 0;
      TRACE_TEXT t;
      const char *zL = z + 1;
      while( strchr("-+ #0123456789.", *zL) ) zL++;
      if( zL[0]=='h' && zL[1]=='h' ) nLen = -2;
      else if( zL[0]=='h' ) nLen = -1;
      else if( zL[0]=='l' && zL[1]=='l' ) nLen = 2;
      else if( zL[0]=='l' || zL[0]=='z' ) nLen = 1;
      /* The C library, given the value cast as libtraceevent casts it. */
      switch( nLen ){
        case -2: snprintf(zWant, sizeof(zWant), z, (int)(signed char)v); break;
        case -1: snprintf(zWant, sizeof(zWant), z, (int)(short)v); break;
        case 0:  snprintf(zWant, sizeof(zWant), z, (int)v); break;
        case 1:  snprintf(zWant, sizeof(zWant), z, (long)v); break;
        default: snprintf(zWant, sizeof(zWant), z, (long long)v); break;
      }
      t.Buffer = zGot; t.Length = 0; t.Capacity = sizeof(zGot) - 1;
      TraceTextFormatNumber(&t, z, (ULONG)nConv, -1, -1, v);
      TraceTextAppend(&t, z + nConv, strlen(z + nConv));
      zGot[t.Length] = 0;
      if( strcmp(zWant, zGot)!=0 ){
        printf("FAIL: \"%s\" of %llu: snprintf \"%s\", ours \"%s\"\n", z, v, zWant, zGot);
        nFail++;
      }
      n++;
    }
  }
  printf("%u conversions compared with snprintf\n", n);
  return nFail!=0;
}

/* Ring pages, laid out as header_page describes them on x86-64. */
static const char zHeaderPage[] =
  "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
  "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
  "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
  "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

static unsigned char aPage[4096];
static unsigned nUsed;

static void put32(unsigned v){ memcpy(aPage + 16 + nUsed, &v, 4); nUsed += 4; }
static void rec(unsigned delta, unsigned nWords){
  unsigned k;
  put32((delta << 5) | nWords);
  for(k=0; k<nWords; k++) put32(0xabc00000u + k);
}
static void commit(unsigned long long flags){
  unsigned long long c = nUsed | flags;
  memcpy(aPage + 8, &c, 8);
}

static int testRingPage(void){
  TRACE_PAGE_LAYOUT layout;
  TRACE_RING_PAGE page;
  TRACE_RING_EVENT ev;
  PCSZ zReason = 0;
  BOOL found;
  unsigned long long ts = 1000000, lost = 17;
  CHECK( RTL_SUCCESS(TraceEventParseHeaderPage(zHeaderPage, sizeof(zHeaderPage) - 1,
                                               &layout, &zReason)) );
  CHECK( layout.CommitSize==8 && layout.DataOffset==16 );
  CHECK( RTL_SUCCESS(TraceEventParseHeaderEvent(
    "# compressed entry header\n\ttype_len    :    5 bits\n\ttime_delta  :   27 bits\n"
    "\tarray       :   32 bits\n\n\tpadding     : type == 29\n\ttime_extend : type == 30\n"
    "\ttime_stamp : type == 31\n\tdata max type_len  == 28\n", 200, &zReason)) );
  CHECK( TraceEventParseHeaderEvent("\ttype : 2 bits\n", 16, &zReason)==RTL_STATUS_BAD_VERSION );

  memset(aPage, 0, sizeof(aPage)); nUsed = 0;
  memcpy(aPage, &ts, 8);
  rec(5, 2);                                   /* 1000005, 8 bytes */
  put32((3 << 5) | 30); put32(2);              /* extend: + (2 << 27) + 3 */
  rec(0, 1);                                   /* 1000008 + 2^28 */
  put32((1 << 5) | 29); put32(12); put32(0); put32(0);  /* padding: +1 */
  put32((0x123 << 5) | 31); put32(7);          /* absolute: (7 << 27) | 0x123 */
  rec(10, 3);
  put32(2 << 5); put32(124 + 4);               /* a 124-byte record, type_len 0 */
  { unsigned k; for(k=0; k<31; k++) put32(k); }
  commit((1ULL << 31) | (1ULL << 30));
  memcpy(aPage + 16 + nUsed, &lost, 8);

  CHECK( RTL_SUCCESS(TraceRingPageBegin(&page, &layout, aPage, 4096, &zReason)) );
  CHECK( page.LostEvents==17 );
  CHECK( RTL_SUCCESS(TraceRingPageNext(&page, &ev, &found, &zReason)) && found );
  CHECK( ev.Timestamp==1000005 && ev.Size==8 );
  CHECK( RTL_SUCCESS(TraceRingPageNext(&page, &ev, &found, &zReason)) && found );
  CHECK( ev.Timestamp==1000005 + (2ULL << 27) + 3 && ev.Size==4 );
  CHECK( RTL_SUCCESS(TraceRingPageNext(&page, &ev, &found, &zReason)) && found );
  CHECK( ev.Timestamp==((7ULL << 27) | 0x123) + 10 && ev.Size==12 );
  CHECK( RTL_SUCCESS(TraceRingPageNext(&page, &ev, &found, &zReason)) && found );
  CHECK( ev.Timestamp==((7ULL << 27) | 0x123) + 12 && ev.Size==124 );
  CHECK( RTL_SUCCESS(TraceRingPageNext(&page, &ev, &found, &zReason)) && !found );

  /* Missed events without a stored count. */
  commit(1ULL << 31);
  CHECK( RTL_SUCCESS(TraceRingPageBegin(&page, &layout, aPage, 4096, &zReason)) );
  CHECK( page.LostEvents==-1 );

  /* A commit larger than the page, and a record running past the commit. */
  { unsigned long long c = 5000; memcpy(aPage + 8, &c, 8); }
  CHECK( TraceRingPageBegin(&page, &layout, aPage, 4096, &zReason)==RTL_STATUS_CORRUPT );
  memset(aPage + 16, 0, 64); nUsed = 0;
  rec(1, 20);
  nUsed = 40; commit(0);
  CHECK( RTL_SUCCESS(TraceRingPageBegin(&page, &layout, aPage, 4096, &zReason)) );
  CHECK( TraceRingPageNext(&page, &ev, &found, &zReason)==RTL_STATUS_CORRUPT );
  printf("ring page checks done\n");
  return nFail!=0;
}

static int testKallsyms(void){
  static const char zText[] =
    "ffffffff81000000 T _stext\n"
    "ffffffff81000000 T _text\n"
    "FFFFFFFF81000100 t UpperHex\n"
    "ffffffff81000200 t with_module\t[kvm]\n"
    "ffffffff81000300 t trailing_blank \t[kvm]\n"
    "ffffffff81000400 t has space\n"
    "ffffffff81000500 A absolute\n"
    "ffffffff81000600 t $dollar\n"
    "ffffffff8100070g t badhex\n"
    "ffffffff8100\xe9" "780 t highbit\n"
    "81000800 t short_address\n"
    "ffffffff81000900 t crlf\r\n"
    "ffffffff81000a00 t last_line";
  static const struct { unsigned long long iAddr; const char *zWant; } a[] = {
    { 0x81000000ULL,         0 },                /* below the first */
    { 0x81000900ULL,         "short_address" },
    { 0xffffffff81000000ULL, "_stext" },         /* the bisection's pick */
    { 0xffffffff81000010ULL, "_stext" },
    { 0xffffffff81000150ULL, "UpperHex" },
    { 0xffffffff81000200ULL, "with_module" },
    { 0xffffffff81000350ULL, "trailing_blank" },
    { 0xffffffff81000400ULL, "trailing_blank" }, /* spaced name left out */
    { 0xffffffff81000700ULL, "trailing_blank" }, /* so are A, $, bad hex */
    { 0xffffffff81000780ULL, "trailing_blank" },
    { 0xffffffff81000950ULL, "crlf" },
    { 0xffffffff81000a00ULL, "last_line" },
    { 0xffffffff81000a01ULL, 0 },                /* last: exactly only */
  };
  TRACE_EVENT_TABLE table;
  unsigned i;
  CHECK( RTL_SUCCESS(TraceEventTableInitialize(&Rtl, 8, &table)) );
  TraceEventTableSetSymbols(&table, zText, sizeof(zText) - 1, 0, 0);
  for(i=0; i<sizeof(a)/sizeof(a[0]); i++){
    PCSZ zName = 0; ULONG nName = 0; ULONGLONG iStart = 0;
    BOOL bFound = TraceEventFindSymbol(&table, a[i].iAddr, &zName, &nName,
                                       &iStart);
    if( a[i].zWant==0 ){
      if( bFound ){
        printf("FAIL %#llx: found %.*s, wanted none\n", a[i].iAddr,
               (int)nName, zName);
        nFail++;
      }
    }else if( !bFound || nName!=strlen(a[i].zWant)
           || memcmp(zName, a[i].zWant, nName)!=0 ){
      printf("FAIL %#llx: found %.*s, wanted %s\n", a[i].iAddr,
             bFound ? (int)nName : 6, bFound ? zName : "(none)", a[i].zWant);
      nFail++;
    }
  }
  CHECK( table.NumberOfSymbols==8 );
  TraceEventTableRelease(&table);

  /* In address order with three names at one address (the order the
  ** indexer keeps without sorting): trace-cmd's array is c_third,
  ** b_second, a_first, after, and its bisection probes index 2 first. */
  {
    static const char zOrdered[] =
      "ffffffff81000000 T a_first\n"
      "ffffffff81000000 T b_second\n"
      "ffffffff81000000 T c_third\n"
      "ffffffff81000100 T after\n";
    static const struct { unsigned long long iAddr; const char *zWant; } b[] = {
      { 0xffffffff81000000ULL, "a_first" },
      { 0xffffffff81000050ULL, "a_first" },
      { 0xffffffff81000100ULL, "after" },
    };
    CHECK( RTL_SUCCESS(TraceEventTableInitialize(&Rtl, 8, &table)) );
    TraceEventTableSetSymbols(&table, zOrdered, sizeof(zOrdered) - 1, 0, 0);
    for(i=0; i<sizeof(b)/sizeof(b[0]); i++){
      PCSZ zName = 0; ULONG nName = 0; ULONGLONG iStart = 0;
      BOOL bFound = TraceEventFindSymbol(&table, b[i].iAddr, &zName, &nName,
                                         &iStart);
      if( !bFound || nName!=strlen(b[i].zWant)
       || memcmp(zName, b[i].zWant, nName)!=0 ){
        printf("FAIL %#llx: found %.*s, wanted %s\n", b[i].iAddr,
               bFound ? (int)nName : 6, bFound ? zName : "(none)", b[i].zWant);
        nFail++;
      }
    }
    CHECK( table.NumberOfSymbols==4 );
    TraceEventTableRelease(&table);
  }

  printf("%s\n", nFail ? "FAILED" : "ok");
  return nFail!=0;
}

/*
** The kernel's C types as this host's compiler sizes them (the kernel is
** LP64 here too), and by hand for a 32-bit recording (ILP32).
*/
static int testTypeSize(void){
  static const struct { const char *zType; unsigned n64; unsigned n32; } a[] = {
    { "char",               sizeof(char),               1 },
    { "unsigned char",      sizeof(unsigned char),      1 },
    { "short",              sizeof(short),              2 },
    { "int",                sizeof(int),                4 },
    { "unsigned int",       sizeof(unsigned int),       4 },
    { "long",               sizeof(long),               4 },
    { "unsigned long",      sizeof(unsigned long),      4 },
    { "long long",          sizeof(long long),          8 },
    { "size_t",             sizeof(size_t),             4 },
    { "u8",                 sizeof(unsigned char),      1 },
    { "s16",                sizeof(short),              2 },
    { "u32",                sizeof(unsigned int),       4 },
    { "__u64",              sizeof(unsigned long long), 8 },
    { "char *",             sizeof(char *),             4 },
    { "struct page *",      sizeof(void *),             4 },
    { "size_t[]",           sizeof(size_t),             4 },
    { "  unsigned long [4]", sizeof(unsigned long),     4 },
  };
  static const char zFormat[] =
    "name: sizes\n"
    "ID: 7\n"
    "format:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
    "\n"
    "\tfield:__data_loc size_t[] lens;\toffset:8;\tsize:4;\tsigned:0;\n"
    "\tfield:__data_loc u16[] ids;\toffset:12;\tsize:4;\tsigned:0;\n"
    "\tfield:__data_loc gfp_t[] flags;\toffset:16;\tsize:4;\tsigned:0;\n"
    "\n"
    "print fmt: \"%d\", sizeof(size_t)\n";
  unsigned i;

  for(i=0; i<sizeof(a)/sizeof(a[0]); i++){
    ULONG n64 = TraceEventTypeSize(a[i].zType, strlen(a[i].zType), 8, FALSE);
    ULONG n32 = TraceEventTypeSize(a[i].zType, strlen(a[i].zType), 4, FALSE);
    if( n64!=a[i].n64 || n32!=a[i].n32 ){
      printf("FAIL %s: %u/%u, want %u/%u\n", a[i].zType, n64, n32,
             a[i].n64, a[i].n32);
      nFail++;
    }
  }

  /* Unknown names: 0 exactly, 4 (libtraceevent users' int) as a guess. */
  CHECK( TraceEventTypeSize("gfp_t", 5, 8, FALSE)==0 );
  CHECK( TraceEventTypeSize("gfp_t", 5, 8, TRUE)==4 );
  CHECK( TraceEventTypeSize("struct foo", 10, 8, FALSE)==0 );

  /* A 64-bit recording's format: the element sizes and sizeof(size_t). */
  {
    TRACE_EVENT_TABLE table;
    PTRACE_EVENT_FORMAT pFormat;
    PCSZ zReason = 0;
    char aBuf[64];
    BYTE aRec[24];
    TRACE_TEXT text;

    CHECK( RTL_SUCCESS(TraceEventTableInitialize(&Rtl, 8, &table)) );
    CHECK( RTL_SUCCESS(TraceEventTableAddFormat(&table, "test", 4, zFormat,
                                                sizeof(zFormat)-1,
                                                &zReason)) );
    pFormat = TraceEventLookup(&table, 7);
    CHECK( pFormat!=0 );
    if( pFormat ){
      PCTRACE_EVENT_FIELD pLens = TraceEventFindField(pFormat, "lens");
      PCTRACE_EVENT_FIELD pIds = TraceEventFindField(pFormat, "ids");
      PCTRACE_EVENT_FIELD pFlags = TraceEventFindField(pFormat, "flags");
      CHECK( pLens && pLens->ElementSize==sizeof(size_t) );
      CHECK( pIds && pIds->ElementSize==2 );
      CHECK( pFlags && pFlags->ElementSize==4 );

      memset(aRec, 0, sizeof(aRec));
      aRec[0] = 7;
      text.Buffer = aBuf;
      text.Capacity = sizeof(aBuf)-1;
      text.Length = 0;
      CHECK( TraceEventRender(&table, pFormat, aRec, sizeof(aRec), &text) );
      CHECK( text.Length==1 && aBuf[0]=='0'+(int)sizeof(size_t) );
    }
    TraceEventTableRelease(&table);
  }

  printf("%s\n", nFail ? "FAILED" : "ok");
  return nFail!=0;
}

int main(int argc, char **argv){
  InitializeRtl(&Rtl);
  if( argc>=4 && strcmp(argv[1], "nozstd")==0 ) return testNoZstd(argv[2], argv[3]);
  if( argc>=2 && strcmp(argv[1], "printf")==0 ) return testPrintf();
  if( argc>=2 && strcmp(argv[1], "ringpage")==0 ) return testRingPage();
  if( argc>=2 && strcmp(argv[1], "kallsyms")==0 ) return testKallsyms();
  if( argc>=2 && strcmp(argv[1], "typesize")==0 ) return testTypeSize();
  fprintf(stderr, "usage: %s nozstd FILE SESSION | printf | ringpage | "
          "kallsyms | typesize\n", argv[0]);
  return 2;
}
