/*
** PlotDraw.c: draws a PlotModel (PlotScan.c) with cairo, as PNG, SVG or
** PDF: seeds/000's GenerateGraph and PlotStackedBar, panel for panel.
**
** Zone: hosted (Outputs/Plot/, an output): libc, libm, cairo (loaded
** by PlotCairo.c).  Owns the look of the picture: the seed's marker
** shapes, sizes and whitening, its preferred colors (chosen in
** PlotScan.c), hex ticks, the cumulative hard-code panel, the two stacked
** bars, and a legend of the categories.  Reads only the model; never the
** session.
**
** Every length is in pixels at the requested dpi (a point is dpi/72 of
** them); SVG and PDF pages are the same figure scaled to 72 units an
** inch, so all three formats show the same picture at the requested size.
** The faults themselves are pixels in every format (binned per pixel, then
** one marker each): in SVG and PDF an image of the faults panel, under
** vector axes, text, lines and bars.
*/
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "Outputs/Plot/Plot.h"
#define PLOT_CAIRO_BY_NAME
#include "Outputs/Plot/PlotCairo.h"

/* The seed's marker sizes and whitening (GenerateGraph). */
#define PLOT_SIZE_DATA   3.0        /* points */
#define PLOT_SIZE_CODE   5.0
#define PLOT_DATA_WHITEN 0.5
#define PLOT_SOFT_WHITEN 0.7
#define PLOT_EDGE_WIDTH  0.5        /* points */
#define PLOT_FONT_SIZE   10.0       /* points */
#define PLOT_BAR_PARTS   2          /* parts of a stacked bar at most */

/* What a drawing routine needs: cairo, the model, a point in pixels. */
typedef struct PlotCanvas {
  cairo_t *cr;
  const PlotModel *m;
  double rPt;                       /* pixels per point */
  int bImage;                       /* drawing into pixels (PNG) */
  int nImgX, nImgY;                 /* figure pixel at the image's (0, 0) */
} PlotCanvas;

/* Whitens rgb by f (0: unchanged, 1: white), as the seed's WhitenColor. */
static void plotWhiten(const double *rgb, double f, double *out){
  int k;
  for(k=0; k<3; k++) out[k] = 1.0 - (1.0 - rgb[k])*(1.0 - f);
}

static void plotSetRgb(cairo_t *cr, const double *rgb){
  cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
}

/*
** Text at (x, y) aligned by (ha, va): 0 left/top, 0.5 center, 1
** right/bottom of the text's box, rotated by a quarter turn
** counter-clockwise when bVertical.
*/
static void plotText(PlotCanvas *c, double x, double y, double ha,
                     double va, int bVertical, const char *z){
  cairo_text_extents_t ext;
  cairo_save(c->cr);
  cairo_translate(c->cr, x, y);
  if( bVertical ) cairo_rotate(c->cr, -M_PI/2);
  cairo_text_extents(c->cr, z, &ext);
  cairo_move_to(c->cr, -ext.x_bearing - ha*ext.width,
                -ext.y_bearing - va*ext.height);
  cairo_show_text(c->cr, z);
  cairo_restore(c->cr);
}

/*
** Ticks for [lo, hi]: a step of 1, 2, 2.5 or 5 times a power of ten (as
** matplotlib's locator) giving at most nMax intervals.  Returns the step.
*/
static double plotTickStep(double lo, double hi, int nMax){
  double raw = (hi - lo)/nMax, mag, norm;
  if( raw<=0 ) return 1;
  mag = pow(10, floor(log10(raw)));
  norm = raw/mag;
  if( norm<=1 ) return mag;
  if( norm<=2 ) return 2*mag;
  if( norm<=2.5 ) return 2.5*mag;
  if( norm<=5 ) return 5*mag;
  return 10*mag;
}

/* Decimals a tick label of that step needs. */
static int plotTickDecimals(double step){
  int n = 0;
  while( n<9 && fabs(step*pow(10, n) - floor(step*pow(10, n) + 0.5))>1e-6 ){
    n++;
  }
  return n;
}

/* A horizontal axis's ticks under rectangle (x, y, w, h); labels if asked. */
static void plotXTicks(PlotCanvas *c, double x, double y, double w, double h,
                       double lo, double hi, int bLabels){
  double step = plotTickStep(lo, hi, 10), t, len = 3.5*c->rPt;
  int nDec = plotTickDecimals(step);
  char z[64];
  for(t=ceil(lo/step - 1e-9)*step; t<=hi + step*1e-9; t+=step){
    double px = x + (t - lo)/(hi - lo)*w;
    cairo_move_to(c->cr, px, y + h);
    cairo_line_to(c->cr, px, y + h + len);
    cairo_stroke(c->cr);
    if( bLabels ){
      snprintf(z, sizeof(z), "%.*f", nDec, fabs(t)<step*1e-9 ? 0.0 : t);
      plotText(c, px, y + h + len + 2*c->rPt, 0.5, 0, 0, z);
    }
  }
}

/*
** A vertical axis's ticks left of (x, y, w, h): counts, or hex offsets.
** bTopLabel: whether a tick at hi has a label (not where the panel above
** has its own lowest one).
*/
static void plotYTicks(PlotCanvas *c, double x, double y, double h,
                       double lo, double hi, int nMax, int bHex,
                       int bTopLabel){
  double step, t, len = 3.5*c->rPt;
  char z[64];
  if( bHex ){
    /* A power of two, so that the offsets read as round hex numbers. */
    unsigned long long s = 1;
    while( (double)s*nMax<hi - lo ) s <<= 1;
    step = (double)s;
  }else{
    step = plotTickStep(lo, hi, nMax);
    if( step<1 ) step = 1;            /* counts: whole numbers only */
  }
  for(t=ceil(lo/step - 1e-9)*step; t<=hi + step*1e-9; t+=step){
    double py = y + h - (t - lo)/(hi - lo)*h;
    cairo_move_to(c->cr, x, py);
    cairo_line_to(c->cr, x - len, py);
    cairo_stroke(c->cr);
    /* Within a label's height of the top: the panel above labels it. */
    if( !bTopLabel && py<y + 1.2*PLOT_FONT_SIZE*c->rPt ) continue;
    if( bHex ){
      snprintf(z, sizeof(z), "0x%08llX", (unsigned long long)t);
    }else{
      snprintf(z, sizeof(z), "%.*f", plotTickDecimals(step), t + 0.0);
    }
    plotText(c, x - len - 2*c->rPt, py, 1, 0.5, 0, z);
  }
}

static void plotFrame(PlotCanvas *c, double x, double y, double w, double h){
  cairo_set_source_rgb(c->cr, 0, 0, 0);
  cairo_set_line_width(c->cr, 0.8*c->rPt);
  cairo_rectangle(c->cr, x, y, w, h);
  cairo_stroke(c->cr);
}

/* Calls f(c, px, py, pArg) for the center of each set pixel of grid g. */
static void plotEachPixel(PlotCanvas *c, const PlotGrid *g,
                          void (*f)(PlotCanvas*, double, double, void*),
                          void *pArg){
  const PlotModel *m = c->m;
  const PlotLayout *l = &m->lay;
  int tx, ty;
  if( g->apTile==0 ) return;
  for(ty=0; ty<m->nTileY; ty++){
    for(tx=0; tx<m->nTileX; tx++){
      const unsigned char *pTile = g->apTile[ty*m->nTileX + tx];
      int b, bit;
      if( pTile==0 ) continue;
      for(b=0; b<PLOT_TILE*PLOT_TILE/8; b++){
        if( pTile[b]==0 ) continue;
        for(bit=0; bit<8; bit++){
          int i = b*8 + bit;
          if( (pTile[b]>>bit & 1)==0 ) continue;
          f(c, l->rMainX + tx*PLOT_TILE + i%PLOT_TILE + 0.5,
            l->rMainY + l->rMainH - (ty*PLOT_TILE + i/PLOT_TILE + 0.5), pArg);
        }
      }
    }
  }
}

/*
** The markers of one grid: squares (hard) or circles (soft) of side or
** diameter rSize, open, with the seed's 0.5 point edge, one per set pixel,
** drawn into an image (the PNG, or the faults layer of an SVG or PDF).
** The marker is drawn once by cairo into an alpha mask (its center at the
** center of pixel (nR, nR)), then composited by hand at each pixel: every
** marker sits on a pixel center, so the copies are exactly what cairo
** would draw there, and a million of them take a fraction of a second
** where stroking a million paths takes seconds.
*/
typedef struct PlotStamp {
  int nR, nDim;                     /* radius, side (2 nR + 1), pixels */
  unsigned char *aAlpha;            /* nDim x nDim */
  unsigned char aRgb[3];
  unsigned char *pData;             /* the image: xRGB words */
  int nStride;
  int xMin, yMin, xMax, yMax;       /* the faults panel, pixels: clip */
} PlotStamp;

static void plotStampAt(PlotCanvas *c, double x, double y, void *pArg){
  PlotStamp *s = pArg;
  int x0 = (int)x - c->nImgX - s->nR, y0 = (int)y - c->nImgY - s->nR, i, j;
  for(j=0; j<s->nDim; j++){
    int py = y0 + j;
    unsigned char *pRow;
    if( py<s->yMin || py>=s->yMax ) continue;
    pRow = s->pData + (size_t)py*s->nStride;
    for(i=0; i<s->nDim; i++){
      int px = x0 + i, a = s->aAlpha[j*s->nDim + i], k;
      unsigned char *pPix;
      if( a==0 || px<s->xMin || px>=s->xMax ) continue;
      pPix = pRow + 4*px;
      for(k=0; k<3; k++){
        /* xRGB in native order: blue, green, red at bytes 0, 1, 2. */
        unsigned char *pc = &pPix[2-k];
        *pc = (unsigned char)((*pc*(255 - a) + s->aRgb[k]*a + 127)/255);
      }
    }
  }
}

static void plotMarkers(PlotCanvas *c, const PlotGrid *g, int bSquare,
                        double rSize, const double *rgb){
  cairo_surface_t *pImage = cairo_get_target(c->cr), *pMask;
  const PlotLayout *l = &c->m->lay;
  double rLine = PLOT_EDGE_WIDTH*c->rPt;
  PlotStamp s;
  cairo_t *cm;
  int k, y;

  s.nR = (int)ceil(rSize/2 + rLine) + 1;
  s.nDim = 2*s.nR + 1;
  pMask = cairo_image_surface_create(CAIRO_FORMAT_A8, s.nDim, s.nDim);
  cm = cairo_create(pMask);
  cairo_set_line_width(cm, rLine);
  if( bSquare ){
    cairo_rectangle(cm, s.nR + 0.5 - rSize/2, s.nR + 0.5 - rSize/2, rSize,
                    rSize);
  }else{
    cairo_arc(cm, s.nR + 0.5, s.nR + 0.5, rSize/2, 0, 2*M_PI);
  }
  cairo_stroke(cm);
  cairo_destroy(cm);
  cairo_surface_flush(pMask);
  s.aAlpha = malloc((size_t)s.nDim*s.nDim);
  if( s.aAlpha==0 || cairo_surface_status(pMask)!=CAIRO_STATUS_SUCCESS ){
    free(s.aAlpha);
    cairo_surface_destroy(pMask);
    return;
  }
  for(y=0; y<s.nDim; y++){
    memcpy(s.aAlpha + y*s.nDim, cairo_image_surface_get_data(pMask)
           + y*cairo_image_surface_get_stride(pMask), (size_t)s.nDim);
  }
  cairo_surface_destroy(pMask);
  for(k=0; k<3; k++) s.aRgb[k] = (unsigned char)(rgb[k]*255 + 0.5);
  cairo_surface_flush(pImage);
  s.pData = cairo_image_surface_get_data(pImage);
  s.nStride = cairo_image_surface_get_stride(pImage);
  s.xMin = (int)ceil(l->rMainX) - c->nImgX;
  s.yMin = (int)ceil(l->rMainY) - c->nImgY;
  s.xMax = (int)floor(l->rMainX + l->rMainW) - c->nImgX;
  s.yMax = (int)floor(l->rMainY + l->rMainH) - c->nImgY;
  plotEachPixel(c, g, plotStampAt, &s);
  cairo_surface_mark_dirty(pImage);
  free(s.aAlpha);
}

/* matplotlib's 'y', the seed's marker lines. */
static const double aYellow[3] = { 0.75, 0.75, 0 };

/* The process starts: yellow vertical lines across a panel (x, y, w, h). */
static void plotProcessLines(PlotCanvas *c, double x, double y, double w,
                             double h){
  const PlotModel *m = c->m;
  int k;
  plotSetRgb(c->cr, aYellow);
  cairo_set_line_width(c->cr, 1.0*c->rPt);
  for(k=0; k<m->nProcessStart; k++){
    double px = x + (m->aProcessStart[k] - m->rX0)/(m->rX1 - m->rX0)*w;
    cairo_move_to(c->cr, px, y);
    cairo_line_to(c->cr, px, y + h);
    cairo_stroke(c->cr);
  }
}

/* The faults panel: data-start lines, markers, process-start lines. */
/* What the faults panel shows behind its process lines, into an image. */
static void plotFaultsLayer(PlotCanvas *c){
  const PlotModel *m = c->m;
  const PlotLayout *l = &m->lay;
  const PlotOptions *o = m->pOpt;
  double rgb[3];
  int k, cls;

  /* The seed's data_start lines: pale yellow, behind the faults. */
  plotWhiten(aYellow, 0.8, rgb);
  plotSetRgb(c->cr, rgb);
  cairo_set_line_width(c->cr, 1.0*c->rPt);
  for(k=0; k<o->nDataStart; k++){
    double py;
    if( o->aDataStart[k].iOffset>=m->iMaxAddr ) continue;
    py = l->rMainY + l->rMainH
       - (double)o->aDataStart[k].iOffset/(double)m->iMaxAddr*l->rMainH;
    cairo_move_to(c->cr, l->rMainX, py);
    cairo_line_to(c->cr, l->rMainX + l->rMainW, py);
    cairo_stroke(c->cr);
  }

  for(k=0; k<plotLayers(m); k++){
    const PlotCategory *pCat = plotLayer(m, k);
    for(cls=0; cls<PLOT_CLASSES; cls++){
      int bHard = cls==PLOT_HARD_DATA || cls==PLOT_HARD_CODE;
      int bCode = cls==PLOT_SOFT_CODE || cls==PLOT_HARD_CODE;
      double f = 0;
      if( !bCode ) f = bHard ? 1 - PLOT_DATA_WHITEN
                             : 1 - PLOT_DATA_WHITEN*PLOT_SOFT_WHITEN;
      else if( !bHard ) f = 1 - PLOT_SOFT_WHITEN;
      plotWhiten(pCat->aRgb, f, rgb);
      plotMarkers(c, &pCat->aGrid[cls], bHard,
                  (bCode ? PLOT_SIZE_CODE : PLOT_SIZE_DATA)*c->rPt, rgb);
    }
  }
}

/*
** The faults layer of an SVG or PDF: an image of the panel at the
** requested dpi, placed in the page (as matplotlib's rasterized=True).
** The faults are binned per pixel of that dpi anyway, so the image loses
** nothing, and a million faults stay a few hundred kilobytes instead of a
** million paths.
*/
static void plotFaultsImage(PlotCanvas *c){
  const PlotLayout *l = &c->m->lay;
  int x0 = (int)floor(l->rMainX), y0 = (int)floor(l->rMainY);
  int w = (int)ceil(l->rMainX + l->rMainW) - x0;
  int h = (int)ceil(l->rMainY + l->rMainH) - y0;
  cairo_surface_t *pImage = cairo_image_surface_create(CAIRO_FORMAT_RGB24,
                                                       w, h);
  PlotCanvas r = *c;
  r.cr = cairo_create(pImage);
  r.bImage = 1;
  r.nImgX = x0;
  r.nImgY = y0;
  cairo_set_source_rgb(r.cr, 1, 1, 1);
  cairo_paint(r.cr);
  cairo_translate(r.cr, -x0, -y0);
  plotFaultsLayer(&r);
  cairo_destroy(r.cr);
  cairo_set_source_surface(c->cr, pImage, x0, y0);
  cairo_pattern_set_filter(cairo_get_source(c->cr), CAIRO_FILTER_NEAREST);
  cairo_paint(c->cr);
  cairo_surface_destroy(pImage);
}

/* The faults panel: data-start lines, markers, process-start lines. */
static void plotMainPanel(PlotCanvas *c){
  const PlotModel *m = c->m;
  const PlotLayout *l = &m->lay;

  cairo_save(c->cr);
  cairo_rectangle(c->cr, l->rMainX, l->rMainY, l->rMainW, l->rMainH);
  cairo_clip(c->cr);
  if( c->bImage ){
    plotFaultsLayer(c);
  }else{
    plotFaultsImage(c);
  }

  /* Process starts over the faults (the seed's zorder 5). */
  plotProcessLines(c, l->rMainX, l->rMainY, l->rMainW, l->rMainH);
  cairo_restore(c->cr);

  if( m->nNoOffset ){
    char z[128];
    snprintf(z, sizeof(z), "%llu of %llu faults have no module offset: "
             "counted, not drawn here", m->nNoOffset, m->nCounted);
    cairo_text_extents_t ext;
    double x = l->rMainX + l->rMainW;
    cairo_text_extents(c->cr, z, &ext);
    if( x - ext.x_advance < 2*c->rPt ) x = ext.x_advance + 2*c->rPt;
    cairo_set_source_rgb(c->cr, 0.4, 0.4, 0.4);
    plotText(c, x, l->rMainY - 4*c->rPt, 1, 1, 0, z);
  }
  plotFrame(c, l->rMainX, l->rMainY, l->rMainW, l->rMainH);
  plotYTicks(c, l->rMainX, l->rMainY, l->rMainH, 0, (double)m->iMaxAddr,
             8, 1, 1);
  /* Tick marks only: the labels are the cumulative panel's, just below. */
  plotXTicks(c, l->rMainX, l->rMainY, l->rMainW, l->rMainH, m->rX0, m->rX1,
             0);
}

/*
** The cumulative hard code faults, stacked by category: the first
** category's area in front, each later one behind it and reaching higher
** (the seed's fill_between with falling zorder).
*/
static void plotCumulativePanel(PlotCanvas *c){
  const PlotModel *m = c->m;
  const PlotLayout *l = &m->lay;
  int n = l->nPlotW, k, x, xFirst = n, xLast = -1;
  double *aAcc = calloc((size_t)n, sizeof(double)), rMax = 0;

  if( aAcc==0 ) return;
  for(k=0; k<plotLayers(m); k++){
    const unsigned *a = plotLayer(m, k)->aHardCode;
    double run = 0;
    if( a==0 ) continue;
    for(x=0; x<n; x++){
      if( a[x] ){
        if( x<xFirst ) xFirst = x;
        if( x>xLast ) xLast = x;
      }
      run += a[x];
      aAcc[x] += run;
    }
  }
  if( xLast>=0 ) rMax = aAcc[n-1];
  if( rMax<1 ) rMax = 1;

  cairo_save(c->cr);
  cairo_rectangle(c->cr, l->rCumX, l->rCumY, l->rCumW, l->rCumH);
  cairo_clip(c->cr);
  for(k=plotLayers(m)-1; k>=0 && xLast>=0; k--){
    const unsigned *a = plotLayer(m, k)->aHardCode;
    double run = 0, base = l->rCumY + l->rCumH;
    if( a==0 ) continue;
    cairo_move_to(c->cr, l->rCumX + xFirst*(l->rCumW/n), base);
    for(x=xFirst; x<=xLast; x++){
      cairo_line_to(c->cr, l->rCumX + (x + 1)*(l->rCumW/n),
                    base - aAcc[x]/rMax*l->rCumH);
    }
    cairo_line_to(c->cr, l->rCumX + (xLast + 1)*(l->rCumW/n), base);
    cairo_close_path(c->cr);
    plotSetRgb(c->cr, plotLayer(m, k)->aRgb);
    cairo_fill(c->cr);
    for(x=0; x<n; x++){
      run += a[x];
      aAcc[x] -= run;
    }
  }
  plotProcessLines(c, l->rCumX, l->rCumY, l->rCumW, l->rCumH);
  cairo_restore(c->cr);
  free(aAcc);

  plotFrame(c, l->rCumX, l->rCumY, l->rCumW, l->rCumH);
  plotYTicks(c, l->rCumX, l->rCumY, l->rCumH, 0, rMax, 2, 0, 0);
  plotXTicks(c, l->rCumX, l->rCumY, l->rCumW, l->rCumH, m->rX0, m->rX1, 1);
  plotText(c, l->rCumX + l->rCumW/2, l->rCumY + l->rCumH + 18*c->rPt,
           0.5, 0, 0, "Time (s)");
  cairo_save(c->cr);
  cairo_set_font_size(c->cr, 0.8*PLOT_FONT_SIZE*c->rPt);
  plotText(c, l->rCumX*0.35, l->rCumY + l->rCumH/2, 0.5, 0.5, 1,
           "Hard code faults");
  cairo_restore(c->cr);
}

/*
** One stacked bar (the seed's PlotStackedBar with its default gray 0.5,
** each later part whitened by i/n): parts scaled to 100, each labelled
** "LABEL (COUNT)" vertically at its middle.  xMid and rWidth are in the
** bar panel's units (x from 0 to 2, y from 0 to 100).
*/
static void plotStackedBar(PlotCanvas *c, double xMid,
                           const unsigned long long *aCount,
                           const char **azLabel, int n){
  const PlotLayout *l = &c->m->lay;
  double rSum = 0, rLo = 0, rWidth = 0.6;
  double aY[PLOT_BAR_PARTS], aLen[PLOT_BAR_PARTS];
  double rTop = l->rBarY, rBottom = l->rBarY + l->rBarH;
  int k;
  char z[PLOT_BAR_PARTS][128];
  for(k=0; k<n; k++) rSum += (double)aCount[k];

  /* The parts, bottom up; then the labels over them (a label may lie
  ** over the next part). */
  for(k=0; k<n; k++){
    double rH = rSum>0 ? aCount[k]/rSum*100.0 : 100.0/n;
    double gray[3] = { 0.5, 0.5, 0.5 }, rgb[3];
    double px = l->rBarX + (xMid - rWidth/2)/2.0*l->rBarW;
    double py = rBottom - (rLo + rH)/100.0*l->rBarH;
    cairo_text_extents_t ext;
    if( rSum>0 ){
      plotWhiten(gray, (double)k/n, rgb);
      plotSetRgb(c->cr, rgb);
      cairo_rectangle(c->cr, px, py, rWidth/2.0*l->rBarW, rH/100.0*l->rBarH);
      cairo_fill(c->cr);
    }
    snprintf(z[k], sizeof(z[k]), "%s (%llu)", azLabel[k], aCount[k]);
    cairo_text_extents(c->cr, z[k], &ext);
    aLen[k] = aCount[k] || rSum==0 ? ext.x_advance + 4*c->rPt : 0;
    aY[k] = rBottom - (rLo + rH/2)/100.0*l->rBarH;
    rLo += rH;
  }

  /* Each label (vertical, aLen long) within the bar and above the one
  ** below it: a short part's label moves along the bar instead of
  ** running off the figure or over its neighbour. */
  for(k=0; k<n; k++){
    double rMax = k ? aY[k-1] - aLen[k-1]/2 - aLen[k]/2 : rBottom - aLen[k]/2;
    if( aY[k]>rMax ) aY[k] = rMax;
  }
  for(k=n-1; k>=0; k--){
    double rMin = k<n-1 ? aY[k+1] + aLen[k+1]/2 + aLen[k]/2
                        : rTop + aLen[k]/2;
    if( aY[k]<rMin ) aY[k] = rMin;
  }
  cairo_set_source_rgb(c->cr, 0, 0, 0);
  for(k=0; k<n; k++){
    /* A part of 0 faults has no label. */
    if( aLen[k]>0 ) plotText(c, l->rBarX + xMid/2.0*l->rBarW, aY[k], 0.5, 0.5, 1, z[k]);
  }
}

/* The bars: hard code / hard data, and hard / soft, over every category. */
static void plotBarPanel(PlotCanvas *c){
  const PlotModel *m = c->m;
  const PlotLayout *l = &m->lay;
  unsigned long long aHard[2] = { 0, 0 }, aAll[2] = { 0, 0 };
  static const char *azHard[] = { "hard code", "hard data" };
  static const char *azAll[] = { "hard", "soft" };
  double t, len = 3.5*c->rPt;
  char z[16];
  int k;
  for(k=0; k<m->nCat; k++){
    const unsigned long long *a = m->aCat[k].aCount;
    aHard[0] += a[PLOT_HARD_CODE];
    aHard[1] += a[PLOT_HARD_DATA];
  }
  aAll[0] = aHard[0] + aHard[1];
  aAll[1] = m->nCounted - aAll[0];
  plotStackedBar(c, 0.5, aHard, azHard, 2);
  plotStackedBar(c, 1.5, aAll, azAll, 2);
  plotFrame(c, l->rBarX, l->rBarY, l->rBarW, l->rBarH);
  /* Percent ticks on the right: the left edge is the faults panel's. */
  for(t=0; t<=100; t+=20){
    double py = l->rBarY + l->rBarH - t/100.0*l->rBarH;
    cairo_move_to(c->cr, l->rBarX + l->rBarW, py);
    cairo_line_to(c->cr, l->rBarX + l->rBarW + len, py);
    cairo_stroke(c->cr);
    snprintf(z, sizeof(z), "%.0f%%", t);
    plotText(c, l->rBarX + l->rBarW + len + 2*c->rPt, py, 0, 0.5, 0, z);
  }
}

/*
** A legend in the top margin: a hard code marker of each drawn category's
** color and its label, most faults first, as many as fit; then "other"
** for the rest (gray), with how many categories and faults it holds.
*/
static void plotLegend(PlotCanvas *c){
  const PlotModel *m = c->m;
  const PlotLayout *l = &m->lay;
  double x = l->rMainX, y = l->rMainY/3, r = PLOT_SIZE_CODE*c->rPt;
  double xEnd = l->rBarX + l->rBarW;
  unsigned long long nOther = 0;
  int k, j;
  char z[96];
  cairo_set_line_width(c->cr, 1.0*c->rPt);
  for(k=0; k<m->nCat && k<PLOT_MAX_DRAWN; k++){
    cairo_text_extents_t ext;
    cairo_text_extents(c->cr, m->aCat[k].zLabel, &ext);
    if( x + 1.6*r + ext.x_advance>xEnd - 160*c->rPt ) break;
    plotSetRgb(c->cr, m->aCat[k].aRgb);
    cairo_rectangle(c->cr, x, y - r/2, r, r);
    cairo_stroke(c->cr);
    cairo_set_source_rgb(c->cr, 0, 0, 0);
    plotText(c, x + 1.6*r, y, 0, 0.5, 0, m->aCat[k].zLabel);
    x += 1.6*r + ext.x_advance + 12*c->rPt;
  }
  if( k==m->nCat ) return;
  for(j=k; j<m->nCat; j++){
    const unsigned long long *a = m->aCat[j].aCount;
    nOther += a[0] + a[1] + a[2] + a[3];
  }
  plotSetRgb(c->cr, m->other.aRgb);
  cairo_rectangle(c->cr, x, y - r/2, r, r);
  cairo_stroke(c->cr);
  cairo_set_source_rgb(c->cr, 0, 0, 0);
  snprintf(z, sizeof(z), "other (%d more, %llu faults)", m->nCat - k, nOther);
  plotText(c, x + 1.6*r, y, 0, 0.5, 0, z);
}

static cairo_status_t plotWrite(void *pFile, const unsigned char *a,
                                unsigned int n){
  return fwrite(a, 1, n, (FILE*)pFile)==n ? CAIRO_STATUS_SUCCESS
                                           : CAIRO_STATUS_WRITE_ERROR;
}

static void plotFigure(cairo_t *cr, const PlotModel *m, int bImage){
  PlotCanvas c;
  c.cr = cr;
  c.bImage = bImage;
  c.nImgX = c.nImgY = 0;
  c.m = m;
  c.rPt = m->pOpt->rDpi/72.0;
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
                         CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, PLOT_FONT_SIZE*c.rPt);
  cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
  plotMainPanel(&c);
  plotCumulativePanel(&c);
  plotBarPanel(&c);
  plotLegend(&c);
}

int plotDraw(const PlotModel *m, FILE *pFile, const char *zFormat,
             const char *zName){
  const PlotLayout *l = &m->lay;
  double rScale = 72.0/m->pOpt->rDpi;
  cairo_surface_t *pSurface;
  cairo_status_t st;
  cairo_t *cr;
  int bPng = strcmp(zFormat, "png")==0;

  if( bPng ){
    pSurface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, l->nFigW,
                                          l->nFigH);
  }else if( strcmp(zFormat, "svg")==0 ){
    pSurface = cairo_svg_surface_create_for_stream(plotWrite, pFile,
                                                   l->nFigW*rScale,
                                                   l->nFigH*rScale);
  }else{
    pSurface = cairo_pdf_surface_create_for_stream(plotWrite, pFile,
                                                   l->nFigW*rScale,
                                                   l->nFigH*rScale);
  }
  cr = cairo_create(pSurface);
  if( !bPng ) cairo_scale(cr, rScale, rScale);
  plotFigure(cr, m, bPng);
  st = cairo_status(cr);
  cairo_destroy(cr);
  if( bPng ){
    cairo_surface_flush(pSurface);
    if( st==CAIRO_STATUS_SUCCESS ) st = cairo_surface_status(pSurface);
    if( st==CAIRO_STATUS_SUCCESS ){
      st = cairo_surface_write_to_png_stream(pSurface, plotWrite, pFile);
    }
  }else{
    /* A vector surface writes its last bytes when finished. */
    cairo_surface_finish(pSurface);
    if( st==CAIRO_STATUS_SUCCESS ) st = cairo_surface_status(pSurface);
  }
  cairo_surface_destroy(pSurface);
  if( st!=CAIRO_STATUS_SUCCESS ){
    hostFail("plot: cannot write %s: %s", zName,
            st==CAIRO_STATUS_WRITE_ERROR ? strerror(errno)
                                         : cairo_status_to_string(st));
    return 1;
  }
  return 0;
}

/*
** Releases what cairo and fontconfig keep for the life of the process
** (font caches), so that a leak checker sees only our own allocations.
*/
void plotDrawShutdown(void){
  if( !plotCairo.bLoaded ) return;
  cairo_debug_reset_static_data();
  FcFini();
}
