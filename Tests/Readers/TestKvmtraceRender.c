/*
** The kvmtrace renderer's fast path (plain %d/%x/%X of integers, literal
** text copied by whole words) against the full Python-% emulation
** (KvmtraceRenderGeneric, itself held to the Python reference by the
** kvmtrace fuzz tests): byte for byte, on every rule of a formats file and
** on a grid of generated rules (every key; flags "", 0, -, #, +, space;
** widths 0..20; with and without a precision; d i u o x X), each with
** random records (small and large data words, TSCs going backwards so that
** reltsc is negative).  The output buffer ends at a PROT_NONE page, so a
** rendering that writes past the rule's MaxLength faults.
**
** usage: TestKvmtraceRender FORMATS_FILE [RECORDS_PER_RULE]
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "Readers/Decoders/Kvmtrace/KvmtraceFormat.h"

static RTL Rtl;
static unsigned long long rngState = 20261121;

static unsigned long long rnd(void){
  rngState ^= rngState << 13; rngState ^= rngState >> 7; rngState ^= rngState << 17;
  return rngState;
}

static unsigned rndWord(void){
  switch( rnd()%4 ){
    case 0:  return 0;
    case 1:  return (unsigned)(rnd() & 0xff);
    case 2:  return (unsigned)(rnd() & 0xffff);
    default: return (unsigned)rnd();
  }
}

/* Renders every rule with random records both ways; returns failures. */
static int checkRules(const char *zName, const char *zText, size_t nText,
                      long long mhz, int nRecords, long long *pnFast,
                      long long *pnRenders){
  KVMTRACE_RULES rules;
  RTL_ERROR err;
  size_t page = 4096, nMap;
  char *pMap, *pGuard;
  char *aGeneric;
  ULONG i;
  int nFail = 0;

  if( !RTL_SUCCESS(KvmtraceRulesParse(&Rtl, zName, zText, nText, mhz, &rules,
                                      &err)) ){
    fprintf(stderr, "FAIL: %s: %s\n", zName, err.Message);
    return 1;
  }
  nMap = ((size_t)rules.MaxLength + page - 1)/page*page + page;
  pMap = mmap(0, nMap, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0);
  pGuard = pMap + nMap - page;
  mprotect(pGuard, page, PROT_NONE);
  aGeneric = malloc(rules.MaxLength);

  for(i=0; i<rules.RuleCount; i++){
    PKVMTRACE_RULE pRule = &rules.Rules[i];
    KVMTRACE_TSC_STATE tsc = { 0 };
    int r;
    if( pRule->OpCount==0 ) continue;
    for(r=0; r<nRecords; r++){
      KVMTRACE_RECORD rec;
      KVMTRACE_VALUES v;
      RTL_ERROR e1, e2;
      RTL_STATUS s1, s2;
      ULONG n1 = 0, n2 = 0, k;
      char *pFast = pGuard - pRule->MaxLength;

      memset(&rec, 0, sizeof(rec));
      rec.Event = pRule->Event;
      rec.TscPresent = rnd()%8 != 0;
      rec.Tsc = rec.TscPresent ? (r%3==0 ? rnd() >> (1 + rnd()%63)
                                         : (1ULL<<40) + rnd()%(1ULL<<44)) : 0;
      rec.Pid = rndWord();
      rec.Vcpu = rndWord();
      rec.DataCount = (ULONG)(rnd()%6);
      for(k=0; k<rec.DataCount; k++) rec.Data[k] = rndWord();
      KvmtraceSetValues(&rules, &tsc, &rec, &v);

      memset(&e1, 0, sizeof(e1)); memset(&e2, 0, sizeof(e2));
      s1 = KvmtraceRender(&rules, i, &v, pFast, &n1, &e1);
      s2 = KvmtraceRenderGeneric(&rules, i, &v, aGeneric, &n2, &e2);
      (*pnRenders)++;
      if( pRule->Fast && !(v.RelTscNegative
                           && (pRule->Keys & KVMTRACE_KEY_BIT_RELTSC)) ){
        (*pnFast)++;
      }
      if( s1!=s2 || (RTL_SUCCESS(s1) && (n1!=n2 || memcmp(pFast, aGeneric, n1)))
       || (!RTL_SUCCESS(s1) && strcmp(e1.Message, e2.Message)) ){
        if( nFail++ < 5 ){
          fprintf(stderr, "FAIL: %s line %u (fast %u): render \"%.*s\" "
                  "(%u bytes), emulation \"%.*s\" (%u bytes)\n", zName,
                  pRule->Line, pRule->Fast, (int)n1, pFast, n1, (int)n2,
                  aGeneric, n2);
        }
      }
    }
  }

  free(aGeneric);
  munmap(pMap, nMap);
  KvmtraceRulesFree(&rules);
  return nFail;
}

/* Appends a line "ID <%(KEY)FLAGSWIDTH[.PREC]TYPE> |" for every shape. */
static char *gridRules(size_t *pn){
  static const char *azKey[] = { "tsc", "event", "reltsc", "pid", "vcpu",
                                 "1", "2", "3", "4", "5" };
  static const char *azFlags[] = { "", "0", "-", "#", "+", " ", "0-", "00" };
  static const char *azWidth[] = { "", "1", "2", "3", "4", "7", "8", "9",
                                   "15", "16", "17", "20" };
  static const char *azPrec[] = { "", ".3" };
  static const char azType[] = "diuoxX";
  size_t nAlloc = 4<<20, n = 0;
  char *z = malloc(nAlloc);
  unsigned id = 1, a, b, c, d, t;
  for(a=0; a<sizeof(azKey)/sizeof(*azKey); a++)
  for(b=0; b<sizeof(azFlags)/sizeof(*azFlags); b++)
  for(c=0; c<sizeof(azWidth)/sizeof(*azWidth); c++)
  for(d=0; d<sizeof(azPrec)/sizeof(*azPrec); d++)
  for(t=0; t<sizeof(azType)-1; t++){
    n += (size_t)snprintf(z+n, nAlloc-n, "%u <%%(%s)%s%s%s%c> %s|\n", id++,
                          azKey[a], azFlags[b], azWidth[c], azPrec[d],
                          azType[t], id%3 ? "" : "a literal longer than "
                          "sixteen bytes, and again: 0123456789abcdef");
  }
  *pn = n;
  return z;
}

int main(int argc, char **argv){
  FILE *f;
  char *zFormats, *zGrid;
  size_t nFormats, nGrid;
  long long nFast = 0, nRenders = 0;
  int nRecords = argc>2 ? atoi(argv[2]) : 200;
  int nFail = 0;

  if( argc<2 ){
    fprintf(stderr, "usage: %s FORMATS_FILE [RECORDS_PER_RULE]\n", argv[0]);
    return 2;
  }
  InitializeRtl(&Rtl);

  f = fopen(argv[1], "rb");
  if( f==0 ){ perror(argv[1]); return 2; }
  zFormats = malloc(1<<20);
  nFormats = fread(zFormats, 1, 1<<20, f);
  fclose(f);

  nFail += checkRules(argv[1], zFormats, nFormats, 0, nRecords*20, &nFast,
                      &nRenders);
  nFail += checkRules(argv[1], zFormats, nFormats, 2400, nRecords*20, &nFast,
                      &nRenders);
  zGrid = gridRules(&nGrid);
  nFail += checkRules("generated rules", zGrid, nGrid, 0, nRecords, &nFast,
                      &nRenders);
  nFail += checkRules("generated rules", zGrid, nGrid, 3000, nRecords/4+1,
                      &nFast, &nRenders);

  /* The comparison must have exercised the fast path, a lot. */
  if( nFast < nRenders/10 ){
    fprintf(stderr, "FAIL: only %lld of %lld renders took the fast path\n",
            nFast, nRenders);
    nFail++;
  }
  printf("%lld renders, %lld on the fast path, %d mismatches\n", nRenders,
         nFast, nFail);
  free(zFormats);
  free(zGrid);
  return nFail ? 1 : 0;
}
