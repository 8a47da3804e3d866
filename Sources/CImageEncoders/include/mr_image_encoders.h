#ifndef MAPRENDER_MR_IMAGE_ENCODERS_H
#define MAPRENDER_MR_IMAGE_ENCODERS_H
#include <stddef.h>

/// Encodes a Cairo ARGB32 image (premultiplied, native-endian 32-bit pixels) as a baseline JPEG
/// through libjpeg-turbo at `quality` 1...100. JPEG has no transparency: each pixel is composited
/// onto white. Settings are fixed (4:4:4 chroma, optimised Huffman tables, the integer DCT, a plain
/// JFIF header with no time stamp), so the same pixels always give the same bytes.
/// Returns 0 and a malloc'd buffer in *out (free with mr_image_free); non-zero on failure, with a
/// short reason in `error`.
int mr_jpeg_write_argb32(const unsigned char *data, int width, int height, int stride, int quality,
                         unsigned char **out, size_t *out_length, char *error, size_t error_size);

/// Encodes a Cairo ARGB32 image as WebP through libwebp: lossy at `quality` 1...99, lossless at
/// 100. Transparency is kept (un-premultiplied alpha). One thread and fixed settings (method 4),
/// so the bytes are the same on every run. Returns as mr_jpeg_write_argb32.
int mr_webp_write_argb32(const unsigned char *data, int width, int height, int stride, int quality,
                         unsigned char **out, size_t *out_length, char *error, size_t error_size);

void mr_image_free(void *p);

#endif
