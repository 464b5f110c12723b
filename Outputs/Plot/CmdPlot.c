/*
** CmdPlot.c: `tracestore plot`: seeds/000's picture of page-fault traffic
** per module (time x module offset; hard/soft, code/data; per process,
** module or thread) from a session, as PNG, SVG or PDF.
**
** Zone: hosted (Outputs/Plot/, an output): libc, POSIX regex.  Owns the
** plot command line, --summary, --watch, and writing the file atomically
** (a temporary file renamed over OUT).  Calls Plot/PlotScan.c (the session
** into a model, through the store API) and Plot/PlotDraw.c (the model
** into cairo), and HostUtil.c (errors).
*/
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "Host/Host.h"
#include "Host/HostPort.h"
#include "Outputs/Plot/Plot.h"
#include "Outputs/Outputs.h"

static const char zPlotHelp[] =
"usage: tracestore plot [-p REGEX] [-m REGEX] [-c process|module|thread]\n"
"                       [--data-start MODULE,OFFSET]... [--from T] [--to T]\n"
"                       [--width IN] [--height IN] [--dpi N] [--summary]\n"
"                       [--watch SEC] -o OUT SESSION\n"
"\n"
"Draws SESSION's page faults as seeds/000 did: each fault a point at\n"
"(seconds since the first process start, offset in its module), hard\n"
"faults squares, soft ones circles, code larger than data, one color per\n"
"category (-c: process, the default; module; thread), data and soft\n"
"paler.  Yellow lines mark process starts and --data-start offsets.\n"
"Below: the cumulative count of hard code faults; at the right: stacked\n"
"bars of hard code / hard data and hard / soft.  OUT ends in .png, .svg\n"
"or .pdf; the default size is 16 x 9 inches at 80 dpi.\n"
"\n"
"  -p REGEX      only processes whose name or executable path matches,\n"
"                and threads whose name (comm) matches at the fault\n"
"  -m REGEX      only faults in modules (mapped files) whose path matches\n"
"  --data-start MODULE,OFFSET\n"
"                in MODULE (a path or a base name), offsets from OFFSET\n"
"                on are data, below it code; otherwise an executable\n"
"                mapping is code (and a fault whose mapping is unknown)\n"
"  --from T, --to T\n"
"                only faults in this window (seconds on the x axis)\n"
"  --summary     print, per category, the counts drawn (tab-separated:\n"
"                hard_code hard_data soft_code soft_data unclassified\n"
"                no_offset category; then a total line)\n"
"  --watch SEC   redraw OUT every SEC seconds while SESSION's writer runs\n"
"                (tracestore record), then once more and exit\n"
"\n"
"REGEXes are POSIX extended regular expressions, matched anywhere in the\n"
"text.  A fault whose source does not say hard or soft (hard is NULL) is\n"
"drawn and counted as soft, and counted in `unclassified` too.  A fault\n"
"without a module offset (no known mapping) counts in the bars and the\n"
"cumulative panel but has no place in the faults panel: `no_offset`.\n"
"With -c process, faults without a pid (ftrace text) are grouped by comm.\n";

/* The file-name extension of zOut, if it is one plot writes. */
static const char *plotFormat(const char *zOut){
  static const char *az[] = { "png", "svg", "pdf" };
  const char *zDot = strrchr(zOut, '.');
  int k;
  if( zDot==0 || strchr(zDot, '/') ) return 0;
  for(k=0; k<3; k++){
    if( strcasecmp(zDot+1, az[k])==0 ) return az[k];
  }
  return 0;
}

static void plotSummary(const PlotModel *m){
  unsigned long long aTotal[PLOT_CLASSES + 2];
  int k, c;
  memset(aTotal, 0, sizeof(aTotal));
  printf("hard_code\thard_data\tsoft_code\tsoft_data\tunclassified\t"
         "no_offset\tcategory\n");
  for(k=0; k<m->nCat; k++){
    const PlotCategory *p = &m->aCat[k];
    printf("%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%s\n",
           p->aCount[PLOT_HARD_CODE], p->aCount[PLOT_HARD_DATA],
           p->aCount[PLOT_SOFT_CODE], p->aCount[PLOT_SOFT_DATA],
           p->nUnclassified, p->nNoOffset, p->zPath ? p->zPath : p->zLabel);
    for(c=0; c<PLOT_CLASSES; c++) aTotal[c] += p->aCount[c];
    aTotal[PLOT_CLASSES] += p->nUnclassified;
    aTotal[PLOT_CLASSES+1] += p->nNoOffset;
  }
  printf("%llu\t%llu\t%llu\t%llu\t%llu\t%llu\ttotal\n",
         aTotal[PLOT_HARD_CODE], aTotal[PLOT_HARD_DATA],
         aTotal[PLOT_SOFT_CODE], aTotal[PLOT_SOFT_DATA],
         aTotal[PLOT_CLASSES], aTotal[PLOT_CLASSES+1]);
}

/*
** Reads the session and draws it into a temporary file beside OUT, then
** renames it over OUT, so a viewer never sees half a picture.  Returns 0,
** 1 (error printed), 2 (nothing to draw yet: *pModel->zEmpty says why) or
** 3 (no fault passes the filters: nothing written).
*/
static int plotOnce(const PlotOptions *pOpt, const char *zFormat,
                    PlotModel *pModel){
  char *zTmp = 0;
  FILE *pFile;
  int rc = plotScan(pOpt, pModel);
  if( rc ) return rc;
  if( pModel->nCounted==0 ) return 3;
  /* /dev/null, a FIFO: drawn in place (a rename would replace it). */
  if( !hostIsSpecialFile(pOpt->zOut)
   && asprintf(&zTmp, "%s.%d.tmp", pOpt->zOut, (int)getpid())<0 ){
    hostFail("plot: out of memory");
    return 1;
  }
  pFile = fopen(zTmp ? zTmp : pOpt->zOut, "wb");
  if( pFile==0 ){
    hostFail("plot: cannot write %s: %s", pOpt->zOut, strerror(errno));
    free(zTmp);
    return 1;
  }
  rc = plotDraw(pModel, pFile, zFormat, pOpt->zOut);
  if( fclose(pFile)!=0 && rc==0 ){
    hostFail("plot: cannot write %s: %s", pOpt->zOut, strerror(errno));
    rc = 1;
  }
  if( zTmp && rc==0 && rename(zTmp, pOpt->zOut)!=0 ){
    hostFail("plot: cannot write %s: %s", pOpt->zOut, strerror(errno));
    rc = 1;
  }
  if( zTmp && rc ) unlink(zTmp);
  free(zTmp);
  return rc;
}

/* A number option's value: 0 and *pr, or 1 after an error. */
static int plotNumber(const char *zOpt, const char *z, double rMin,
                      double rMax, double *pr){
  char *zEnd = 0;
  double r = z ? strtod(z, &zEnd) : 0;
  if( z==0 || zEnd==z || *zEnd || !(r>=rMin && r<=rMax) ){
    hostFail("plot: %s needs a number from %g to %g, not '%s'", zOpt, rMin,
            rMax, z ? z : "");
    return 1;
  }
  *pr = r;
  return 0;
}

/* --data-start MODULE,OFFSET (OFFSET in C notation: 0x.., 0.., decimal). */
static int plotDataStart(PlotOptions *o, const char *z){
  const char *zComma = z ? strrchr(z, ',') : 0;
  char *zEnd = 0;
  unsigned long long iOff;
  PlotDataStart *aNew;
  if( zComma==0 || zComma==z ) goto bad;
  errno = 0;
  iOff = strtoull(zComma+1, &zEnd, 0);
  if( zEnd==zComma+1 || *zEnd || errno ) goto bad;
  aNew = realloc(o->aDataStart, (o->nDataStart+1)*sizeof(PlotDataStart));
  if( aNew==0 ){
    hostFail("plot: out of memory");
    return 1;
  }
  o->aDataStart = aNew;
  aNew[o->nDataStart].zModule = strndup(z, (size_t)(zComma - z));
  aNew[o->nDataStart].iOffset = iOff;
  if( aNew[o->nDataStart].zModule==0 ) return 1;
  o->nDataStart++;
  return 0;
bad:
  hostFail("plot: --data-start needs MODULE,OFFSET (e.g. libc.so.6,0x1c0000),"
          " not '%s'", z ? z : "");
  return 1;
}

static int plotRegex(const char *zOpt, const char *z, regex_t **ppRe){
  int rc;
  if( z==0 ){
    hostFail("plot: %s needs a regular expression", zOpt);
    return 1;
  }
  if( *ppRe ){
    regfree(*ppRe);
  }else if( (*ppRe = malloc(sizeof(regex_t)))==0 ){
    return 1;
  }
  rc = regcomp(*ppRe, z, REG_EXTENDED|REG_NOSUB);
  if( rc ){
    char zErr[256];
    regerror(rc, *ppRe, zErr, sizeof(zErr));
    hostFail("plot: bad %s regular expression '%s': %s", zOpt, z, zErr);
    free(*ppRe);
    *ppRe = 0;
    return 1;
  }
  return 0;
}

/* Parses argv into *o: 0, 1 (bad value: error printed), 2 (usage). */
static int plotParse(int argc, char **argv, PlotOptions *o, double *prWatch,
                     int *pbSummary){
  int i;
  for(i=0; i<argc; i++){
    const char *z = argv[i], *zArg = i+1<argc ? argv[i+1] : 0;
    if( strcmp(z, "--help")==0 || strcmp(z, "-h")==0 ){
      fputs(zPlotHelp, stdout);
      exit(0);
    }else if( strcmp(z, "--summary")==0 ){
      *pbSummary = 1;
      continue;
    }else if( z[0]!='-' ){
      if( o->zSession ) return 2;
      o->zSession = z;
      continue;
    }
    if( zArg==0 ){
      hostFail("plot: %s needs a value", z);
      return 2;
    }
    i++;
    if( strcmp(z, "-o")==0 ){
      o->zOut = zArg;
    }else if( strcmp(z, "-p")==0 ){
      if( plotRegex("-p", zArg, &o->pProcess) ) return 1;
    }else if( strcmp(z, "-m")==0 ){
      if( plotRegex("-m", zArg, &o->pModule) ) return 1;
    }else if( strcmp(z, "-c")==0 ){
      if( strcmp(zArg, "process")==0 ) o->eCategorize = PLOT_BY_PROCESS;
      else if( strcmp(zArg, "module")==0 ) o->eCategorize = PLOT_BY_MODULE;
      else if( strcmp(zArg, "thread")==0 ) o->eCategorize = PLOT_BY_THREAD;
      else{
        hostFail("plot: -c takes process, module or thread, not '%s'", zArg);
        return 1;
      }
    }else if( strcmp(z, "--data-start")==0 ){
      if( plotDataStart(o, zArg) ) return 1;
    }else if( strcmp(z, "--from")==0 ){
      if( plotNumber(z, zArg, -1e9, 1e9, &o->rFrom) ) return 1;
      o->bFrom = 1;
    }else if( strcmp(z, "--to")==0 ){
      if( plotNumber(z, zArg, -1e9, 1e9, &o->rTo) ) return 1;
      o->bTo = 1;
    }else if( strcmp(z, "--width")==0 ){
      if( plotNumber(z, zArg, 0.5, 200, &o->rWidth) ) return 1;
    }else if( strcmp(z, "--height")==0 ){
      if( plotNumber(z, zArg, 0.5, 200, &o->rHeight) ) return 1;
    }else if( strcmp(z, "--dpi")==0 ){
      if( plotNumber(z, zArg, 10, 1200, &o->rDpi) ) return 1;
    }else if( strcmp(z, "--watch")==0 ){
      if( plotNumber(z, zArg, 0.05, 86400, prWatch) ) return 1;
    }else{
      hostFail("plot: unknown option '%s'", z);
      return 2;
    }
  }
  if( o->zSession==0 || o->zOut==0 ) return 2;
  return 0;
}

static void plotOptionsFree(PlotOptions *o){
  int k;
  if( o->pProcess ){ regfree(o->pProcess); free(o->pProcess); }
  if( o->pModule ){ regfree(o->pModule); free(o->pModule); }
  for(k=0; k<o->nDataStart; k++) free((char*)o->aDataStart[k].zModule);
  free(o->aDataStart);
}

/*
** --watch: draw, sleep, draw again while the writer runs; the writer's
** lock is looked at before each drawing, so the last one (drawn after the
** writer ended) has everything it committed.
*/
static int plotWatch(const PlotOptions *o, const char *zFormat,
                     double rWatch, PlotModel *pModel){
  int bShown = 0, rc;
  for(;;){
    int bRuns = hostWriterRuns(o->zSession);
    rc = plotOnce(o, zFormat, pModel);
    if( !bRuns || rc==1 ) break;
    if( rc>=2 && !bShown ){
      fprintf(stderr, "tracestore plot: %s; waiting\n",
              rc==2 ? pModel->zEmpty : "no fault passes the filters yet");
      bShown = 1;
    }
    plotModelFree(pModel);
    {
      struct timespec ts;
      ts.tv_sec = (time_t)rWatch;
      ts.tv_nsec = (long)((rWatch - (double)ts.tv_sec)*1e9);
      nanosleep(&ts, 0);
    }
  }
  return rc;
}

int cmdPlot(int argc, char **argv){
  PlotOptions o;
  PlotModel m;
  double rWatch = 0;
  int bSummary = 0, rc;
  const char *zFormat;

  memset(&o, 0, sizeof(o));
  memset(&m, 0, sizeof(m));
  o.rWidth = 16;
  o.rHeight = 9;
  o.rDpi = 80;
  rc = plotParse(argc, argv, &o, &rWatch, &bSummary);
  if( rc==2 ) fputs(zPlotHelp, stderr);
  if( rc ) goto end;
  if( (zFormat = plotFormat(o.zOut))==0 ){
    hostFail("plot: %s: the output's name must end in .png, .svg or .pdf",
            o.zOut);
    rc = 1;
    goto end;
  }
  if( o.rWidth*o.rDpi>32767 || o.rHeight*o.rDpi>32767 ){
    hostFail("plot: %g x %g inches at %g dpi is more than 32767 pixels a side",
            o.rWidth, o.rHeight, o.rDpi);
    rc = 1;
    goto end;
  }
  if( o.bFrom && o.bTo && o.rTo<=o.rFrom ){
    hostFail("plot: --to must be after --from");
    rc = 1;
    goto end;
  }
  if( plotCairoLoad() ){
    rc = 1;
    goto end;
  }

  rc = rWatch>0 ? plotWatch(&o, zFormat, rWatch, &m)
                : plotOnce(&o, zFormat, &m);
  if( rc==2 ){
    hostFail("plot: %s", m.zEmpty);
    rc = 1;
  }
  if( rc==0 || rc==3 ){
    int k;
    for(k=0; k<o.nDataStart && m.abDataStartUsed; k++){
      if( !m.abDataStartUsed[k] ){
        fprintf(stderr, "tracestore plot: warning: --data-start %s matches "
                "no module that faulted (by path or file name)\n",
                o.aDataStart[k].zModule);
      }
    }
    if( bSummary ) plotSummary(&m);
  }
  if( rc==3 ){
    hostFail("plot: none of the %llu faults passes -p, -m, --from and --to;"
             " %s is not written", m.nFaults, o.zOut);
    rc = 1;
  }
  plotModelFree(&m);
  plotDrawShutdown();
end:
  plotOptionsFree(&o);
  return rc;
}
