#ifndef MAPRENDER_CRSVG_SHIM_H
#define MAPRENDER_CRSVG_SHIM_H
// librsvg draws SVG icon markers (`marker.icon`, `--marker-icon`) onto Cairo: as vector paths in
// SVG and PDF output, as pixels in raster output.
#include <librsvg/rsvg.h>
#endif
