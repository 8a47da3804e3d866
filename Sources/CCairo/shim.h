#ifndef MAPRENDER_CCAIRO_SHIM_H
#define MAPRENDER_CCAIRO_SHIM_H
#include <cairo.h>
#include <cairo-svg.h>
#include <cairo-pdf.h>
// The script surface: tests read back the glyph ids Cairo was asked to draw (PathLabelShapingTests).
#include <cairo-script.h>
#include <pango/pangocairo.h>
#include <fontconfig/fontconfig.h>
#include <pango/pangofc-fontmap.h>
#endif
