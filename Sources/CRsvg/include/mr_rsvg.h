#ifndef MAPRENDER_MR_RSVG_H
#define MAPRENDER_MR_RSVG_H
// librsvg draws SVG icon markers (`marker.icon`, `--marker-icon`) onto Cairo: as vector paths in
// SVG and PDF output, as pixels in raster output. librsvg is opened on first use (dlopen), not
// linked: see mr_rsvg.c.
#include <stddef.h>

/// A parsed SVG document (librsvg's RsvgHandle). Not to be shared between threads.
typedef struct mr_svg mr_svg;

/// Loads librsvg (once); NULL when it is ready, else why it is not.
const char *mr_rsvg_problem(void);

/// Parses `length` bytes of SVG at 96 dots per inch (CSS px); NULL with `error` filled (why,
/// librsvg's words or why librsvg is missing) when it cannot.
mr_svg *mr_svg_open(const unsigned char *bytes, size_t length, char error[256]);

void mr_svg_close(mr_svg *svg);

/// Its width and height in CSS px: from `width` and `height`, else from the `viewBox`. 0 when it
/// has neither (positive and finite).
int mr_svg_intrinsic_size(mr_svg *svg, double *width, double *height);

/// Draws the whole document scaled into the box (x, y, width, height) of the Cairo context `cr`
/// (a `cairo_t *`); 1 when librsvg drew it.
int mr_svg_render(mr_svg *svg, void *cr, double x, double y, double width, double height);

#endif
