/*
** PlotCairo.h: cairo and fontconfig, loaded when `tracestore plot` draws.
**
** Zone: hosted (Outputs/Plot/, an output): libc's dlopen.  Included by
** PlotDraw.c (which then calls cairo by its usual names) and PlotCairo.c
** (which loads it).
**
** Linking libcairo into the tracestore executable made every command load
** it and its 19 libraries first: 1.25 ms of a 2.4 ms start-up here, more
** than the whole import of a small trace.dat spends on its formats
** (docs/benchmarks-history.md, "Importing trace.dat").  So only plot loads it,
** libcairo.so.2 by its soname, and a machine without cairo still runs
** every other command.  cairo.h declares the functions; the table holds
** pointers of the same types, so a call through it is checked like a
** direct call.
*/
#ifndef PLOT_CAIRO_H
#define PLOT_CAIRO_H

#include <cairo.h>
#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <fontconfig/fontconfig.h>

/* Every cairo and fontconfig function the plot calls. */
#define PLOT_CAIRO_API(X) \
  X(cairo_arc) X(cairo_clip) X(cairo_close_path) X(cairo_create) \
  X(cairo_debug_reset_static_data) X(cairo_destroy) X(cairo_fill) \
  X(cairo_get_source) X(cairo_get_target) X(cairo_image_surface_create) \
  X(cairo_image_surface_get_data) X(cairo_image_surface_get_stride) \
  X(cairo_line_to) X(cairo_move_to) X(cairo_paint) \
  X(cairo_pattern_set_filter) X(cairo_pdf_surface_create_for_stream) \
  X(cairo_rectangle) X(cairo_restore) X(cairo_rotate) X(cairo_save) \
  X(cairo_scale) X(cairo_select_font_face) X(cairo_set_font_size) \
  X(cairo_set_line_cap) X(cairo_set_line_width) X(cairo_set_source_rgb) \
  X(cairo_set_source_surface) X(cairo_show_text) X(cairo_status) \
  X(cairo_status_to_string) X(cairo_stroke) \
  X(cairo_surface_destroy) X(cairo_surface_finish) X(cairo_surface_flush) \
  X(cairo_surface_mark_dirty) X(cairo_surface_status) \
  X(cairo_surface_write_to_png_stream) \
  X(cairo_svg_surface_create_for_stream) X(cairo_text_extents) \
  X(cairo_translate) X(FcFini)

typedef struct PlotCairo PlotCairo;
struct PlotCairo {
  int bLoaded;
#define PLOT_CAIRO_SLOT(f) __typeof__(&f) f;
  PLOT_CAIRO_API(PLOT_CAIRO_SLOT)
#undef PLOT_CAIRO_SLOT
};

/* The table, filled by plotCairoLoad (Plot.h). */
extern PlotCairo plotCairo;

/*
** PlotDraw.c defines PLOT_CAIRO_BY_NAME and calls cairo by its own names,
** each of which then means the table's slot.
*/
#ifdef PLOT_CAIRO_BY_NAME
#  define cairo_arc plotCairo.cairo_arc
#  define cairo_clip plotCairo.cairo_clip
#  define cairo_close_path plotCairo.cairo_close_path
#  define cairo_create plotCairo.cairo_create
#  define cairo_debug_reset_static_data plotCairo.cairo_debug_reset_static_data
#  define cairo_destroy plotCairo.cairo_destroy
#  define cairo_fill plotCairo.cairo_fill
#  define cairo_get_source plotCairo.cairo_get_source
#  define cairo_get_target plotCairo.cairo_get_target
#  define cairo_image_surface_create plotCairo.cairo_image_surface_create
#  define cairo_image_surface_get_data plotCairo.cairo_image_surface_get_data
#  define cairo_image_surface_get_stride plotCairo.cairo_image_surface_get_stride
#  define cairo_line_to plotCairo.cairo_line_to
#  define cairo_move_to plotCairo.cairo_move_to
#  define cairo_paint plotCairo.cairo_paint
#  define cairo_pattern_set_filter plotCairo.cairo_pattern_set_filter
#  define cairo_pdf_surface_create_for_stream plotCairo.cairo_pdf_surface_create_for_stream
#  define cairo_rectangle plotCairo.cairo_rectangle
#  define cairo_restore plotCairo.cairo_restore
#  define cairo_rotate plotCairo.cairo_rotate
#  define cairo_save plotCairo.cairo_save
#  define cairo_scale plotCairo.cairo_scale
#  define cairo_select_font_face plotCairo.cairo_select_font_face
#  define cairo_set_font_size plotCairo.cairo_set_font_size
#  define cairo_set_line_cap plotCairo.cairo_set_line_cap
#  define cairo_set_line_width plotCairo.cairo_set_line_width
#  define cairo_set_source_rgb plotCairo.cairo_set_source_rgb
#  define cairo_set_source_surface plotCairo.cairo_set_source_surface
#  define cairo_show_text plotCairo.cairo_show_text
#  define cairo_status plotCairo.cairo_status
#  define cairo_status_to_string plotCairo.cairo_status_to_string
#  define cairo_stroke plotCairo.cairo_stroke
#  define cairo_surface_destroy plotCairo.cairo_surface_destroy
#  define cairo_surface_finish plotCairo.cairo_surface_finish
#  define cairo_surface_flush plotCairo.cairo_surface_flush
#  define cairo_surface_mark_dirty plotCairo.cairo_surface_mark_dirty
#  define cairo_surface_status plotCairo.cairo_surface_status
#  define cairo_surface_write_to_png_stream plotCairo.cairo_surface_write_to_png_stream
#  define cairo_svg_surface_create_for_stream plotCairo.cairo_svg_surface_create_for_stream
#  define cairo_text_extents plotCairo.cairo_text_extents
#  define cairo_translate plotCairo.cairo_translate
#  define FcFini plotCairo.FcFini
#endif

#endif /* PLOT_CAIRO_H */
