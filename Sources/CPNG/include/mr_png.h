#ifndef MAPRENDER_MR_PNG_H
#define MAPRENDER_MR_PNG_H
#include <stddef.h>

/// Receives encoded bytes; returns 0 on success.
typedef int (*mr_png_write_fn)(void *closure, const unsigned char *data, size_t length);

/// Encodes a Cairo ARGB32 image (premultiplied, native-endian 32-bit pixels) as PNG through libpng:
/// RGB when every pixel is opaque, else RGBA (un-premultiplied); the SUB filter only, zlib `level`.
/// Returns 0 on success, non-zero on a libpng or write error.
int mr_png_write_argb32(const unsigned char *data, int width, int height, int stride,
                        int level, mr_png_write_fn write, void *closure);

#endif
