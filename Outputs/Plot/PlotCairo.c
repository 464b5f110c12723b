/*
** PlotCairo.c: loads cairo (and the fontconfig it brings) for `tracestore
** plot`, into the table PlotDraw.c calls through (PlotCairo.h says why).
**
** Zone: hosted (Outputs/Plot/, an output): libc's dlopen and dlsym.
** Called by CmdPlot.c before it reads the session, so that a machine
** without cairo fails at once, saying so.
*/
#include <dlfcn.h>

#include "Outputs/Plot/Plot.h"
#include "Outputs/Plot/PlotCairo.h"

PlotCairo plotCairo;

int plotCairoLoad(void){
  void *pLib;
  void *p;
  if( plotCairo.bLoaded ) return 0;
  pLib = dlopen("libcairo.so.2", RTLD_NOW | RTLD_LOCAL);
  if( pLib==0 ){
    hostFail("plot: cannot load cairo (Debian: apt-get install libcairo2): %s",
            dlerror());
    return 1;
  }
  /* dlsym on cairo's handle also searches the libraries it needs, among
  ** them fontconfig. */
#define PLOT_CAIRO_LOAD(f)                                              \
  p = dlsym(pLib, #f);                                                  \
  if( p==0 ){                                                           \
    hostFail("plot: %s has no %s: %s", "libcairo.so.2", #f, dlerror());  \
    dlclose(pLib);                                                      \
    return 1;                                                           \
  }                                                                     \
  *(void**)&plotCairo.f = p;
  PLOT_CAIRO_API(PLOT_CAIRO_LOAD)
#undef PLOT_CAIRO_LOAD
  plotCairo.bLoaded = 1;
  return 0;
}
