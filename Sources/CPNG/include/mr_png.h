#ifndef MAPRENDER_MR_PNG_H
#define MAPRENDER_MR_PNG_H
#include <stddef.h>
#include <stdint.h>

/// Receives encoded bytes; returns 0 on success.
typedef int (*mr_png_write_fn)(void *closure, const unsigned char *data, size_t length);

/// Encodes a Cairo ARGB32 image (premultiplied, native-endian 32-bit pixels) as PNG through libpng:
/// RGB when every pixel is opaque, else RGBA (un-premultiplied); the SUB filter only, zlib `level`.
/// Returns 0 on success, non-zero on a libpng or write error.
int mr_png_write_argb32(const unsigned char *data, int width, int height, int stride,
                        int level, mr_png_write_fn write, void *closure);


/// One row of Cairo's ARGB32 (premultiplied, native-endian) as straight RGB (opaque) or RGBA
/// bytes, un-premultiplied with rounding; the one conversion of the PNG, JPEG and WebP writers.
/// Returns the byte after the last one written.
/// 1 when every pixel of a Cairo ARGB32 image is opaque (written without an alpha channel).
int mr_argb32_is_opaque(const unsigned char *data, int width, int height, int stride);

unsigned char *mr_unpremultiply_row(const uint32_t *row, int width, int opaque, unsigned char *out);

#endif
