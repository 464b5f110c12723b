/*
** Plot.h: what `tracestore plot` (Outputs/Plot/CmdPlot.c) shares with its
** two halves: PlotScan.c reads a session's page faults into a PlotModel
** (counts, and points binned per pixel), PlotDraw.c draws a PlotModel with
** cairo.  The picture is seeds/000's GenerateGraph: faults at (time,
** module offset), hard/soft x code/data per category, the cumulative
** hard-code panel, two stacked bars.
**
** Zone: hosted (Outputs/Plot/, an output): libc, POSIX regex, cairo
** (PlotDraw.c only).  Arrows: CmdPlot.c -> PlotScan.c, PlotDraw.c ->
** the store API (TraceStore/TraceStore.h, through Host/Host.h); PlotDraw.c
** reads only the model, never the session.
*/
#ifndef TRACER_CLI_PLOT_H
#define TRACER_CLI_PLOT_H

#include <regex.h>
#include <stdio.h>

#include "Host/Host.h"

/*
** The four classes of a fault, in the order the seed draws them (each
** category's soft data first, its hard code last, on top).
*/
#define PLOT_SOFT_DATA 0
#define PLOT_HARD_DATA 1
#define PLOT_SOFT_CODE 2
#define PLOT_HARD_CODE 3
#define PLOT_CLASSES   4

/* What a category is: the seed's -c (categorize) choices. */
#define PLOT_BY_PROCESS 0
#define PLOT_BY_MODULE  1
#define PLOT_BY_THREAD  2

/* One --data-start MODULE,OFFSET: offsets below it are code, above data. */
typedef struct PlotDataStart {
  const char *zModule;              /* a path, or a base name */
  unsigned long long iOffset;
} PlotDataStart;

/* The command line, as CmdPlot.c parsed it. */
typedef struct PlotOptions {
  const char *zSession;
  const char *zOut;
  int eCategorize;                  /* PLOT_BY_* */
  regex_t *pProcess;                /* -p, compiled, or 0 */
  regex_t *pModule;                 /* -m, compiled, or 0 */
  PlotDataStart *aDataStart;        /* --data-start, nDataStart of them */
  int nDataStart;
  int bFrom, bTo;                   /* --from / --to given */
  double rFrom, rTo;                /* s from the first process start */
  double rWidth, rHeight;           /* inches (default 16 x 9) */
  double rDpi;                      /* default 80 */
} PlotOptions;

/*
** The figure's layout, in pixels (at the requested dpi) with y downwards:
** the seed's axes rectangles [left, bottom, width, height] as fractions of
** the figure: the faults [0.1, 0.2, 0.75, 0.7], the cumulative panel
** [0.1, 0.1, 0.75, 0.1], the bars [0.85, 0.1, 0.05, 0.8].  The faults
** panel is binned at one cell per pixel: nPlotW x nPlotH.
*/
typedef struct PlotLayout {
  int nFigW, nFigH;                 /* figure, pixels */
  double rMainX, rMainY, rMainW, rMainH;
  double rCumX, rCumY, rCumW, rCumH;
  double rBarX, rBarY, rBarW, rBarH;
  int nPlotW, nPlotH;               /* faults panel, whole pixels */
} PlotLayout;

void plotLayout(const PlotOptions *pOpt, PlotLayout *pLay);

/*
** The pixel grid of one category and class: a bit per pixel, held in
** tiles of 64 x 64 pixels allocated on first use, so that the memory
** follows the area a category covers, not the picture times the
** categories.
*/
#define PLOT_TILE 64
typedef struct PlotGrid {
  unsigned char **apTile;           /* nTileX * nTileY, or 0 */
} PlotGrid;

typedef struct PlotCategory {
  unsigned long long iKey;          /* pid, tid or module string id, + 1 */
  char *zLabel;                     /* "PID NAME", "TID COMM", module file
                                       name, "COMM (no pid)" */
  char *zPath;                      /* the module's path (-c module), or 0 */
  long long iFirstTs;               /* ns: first fault counted */
  unsigned long long aCount[PLOT_CLASSES];
  unsigned long long nUnclassified; /* hard NULL: counted as soft */
  unsigned long long nNoOffset;     /* no module offset: not in the panel */
  PlotGrid aGrid[PLOT_CLASSES];
  unsigned *aHardCode;              /* hard code faults per pixel column */
  double aRgb[3];                   /* the category's color */
} PlotCategory;

/*
** Categories drawn in their own color, each with its own grids and named
** in the legend: the PLOT_MAX_DRAWN with the most faults; the rest (a
** trace of thousands of threads) are drawn together in gray as one more
** layer, "other", so that memory stays bounded and every color stays
** apart from the others.  Each is still counted on its own (--summary).
*/
#define PLOT_MAX_DRAWN 8

/* The picture's content: what PlotScan.c found, what PlotDraw.c draws. */
typedef struct PlotModel {
  PlotLayout lay;
  int nTileX, nTileY;
  PlotCategory *aCat;               /* most faults first (color order) */
  int nCat, nCatAlloc;
  PlotCategory other;               /* grids of categories past the drawn */
  unsigned long long nFaults;       /* faults in the session's store */
  unsigned long long nCounted;      /* of them, the picture counts */
  unsigned long long nNoOffset;     /* of those, not in the faults panel */
  long long iOrigin;                /* ns: x = 0, the first process start */
  double rX0, rX1;                  /* x range, s */
  unsigned long long iMaxAddr;      /* y range: 0 .. iMaxAddr */
  double *aProcessStart;            /* s, nProcessStart of them */
  int nProcessStart;
  const PlotOptions *pOpt;
  unsigned char *abDataStartUsed;   /* per --data-start: it named a module */
  char zEmpty[256];                 /* why plotScan returned 2 */
} PlotModel;

/*
** Reads the session pOpt->zSession into *pModel (zeroed first).  Returns 0;
** 2 when there is nothing to draw yet (no page_fault store, or no fault in
** it), with the reason in pModel->zEmpty, not printed (a live session may
** still get them); 1 after printing any other error (a session that
** cannot be opened, no memory).  A model is freed with plotModelFree.
*/
int plotScan(const PlotOptions *pOpt, PlotModel *pModel);
void plotModelFree(PlotModel *pModel);

/* The file name of a path, after its last '/' or '\\'. */
const char *plotBaseName(const char *zPath);

/* The layers drawn: PLOT_MAX_DRAWN categories at most, then `other`. */
int plotLayers(const PlotModel *pModel);
const PlotCategory *plotLayer(const PlotModel *pModel, int k);

/* Sets bit (x, y) of a grid; TRUE if it is set.  x < nPlotW, y < nPlotH. */
int plotGridSet(PlotModel *pModel, PlotGrid *pGrid, int x, int y);
int plotGridGet(const PlotModel *pModel, const PlotGrid *pGrid, int x, int y);

/* Loads cairo (PlotCairo.c), before the first plotDraw.  Returns 0, or 1
** after printing an error. */
int plotCairoLoad(void);

/*
** Draws the model into pFile as PNG, SVG or PDF (zFormat: "png", "svg",
** "pdf").  Returns 0, or 1 after printing an error naming zName.
*/
int plotDraw(const PlotModel *pModel, FILE *pFile, const char *zFormat,
             const char *zName);

/* At exit, after the last plotDraw: cairo's and fontconfig's caches freed. */
void plotDrawShutdown(void);

#endif /* TRACER_CLI_PLOT_H */
