#ifndef MAPRENDER_MR_IMAGE_CODEC_H
#define MAPRENDER_MR_IMAGE_CODEC_H
// maprender's one image codec (libpng, libjpeg-turbo, libwebp, zlib), in C because libpng and
// libjpeg report errors with longjmp, which Swift cannot catch. One header check
// (`mr_image_probe`), one size policy (`mr_image_size_check`, applied from the header before any
// decoder allocates), one decoder to straight RGBA (`mr_image_decode`: raster tiles, `compare`,
// the tests), the encoders of the rendered map (PNG, JPEG, WebP) and of straight RGBA (PNG), and
// zlib's CRC-32 and inflate.
#include <stddef.h>
#include <stdint.h>

// MARK: - Header and size policy

enum mr_image_format { MR_IMAGE_UNKNOWN = 0, MR_IMAGE_PNG = 1, MR_IMAGE_JPEG = 2, MR_IMAGE_WEBP = 3 };

/// The format (sniffed from the first bytes) and pixel size of an image, from its header alone:
/// PNG's IHDR, JPEG's frame header (SOFn, found by walking the markers), WebP's VP8/VP8L/VP8X
/// header. Nothing is decoded or allocated. Returns 0 and sets the three outputs, or non-zero with
/// a short reason in `error` ("not a PNG, JPEG or WebP image", "JPEG has no frame header", ...).
int mr_image_probe(const unsigned char *data, size_t length, int *format, unsigned long *width, unsigned long *height,
                   char *error, size_t error_size);

/// The one size policy: 0 when 1 <= width, height <= max_side and width * height <= max_pixels
/// (0: no such limit); else non-zero with the reason in `error`, e.g.
/// "PNG is 8192x8192 pixels, outside 1x1...4096x4096" or
/// "PNG is 20000x20000 = 400000000 pixels, more than the limit of 268435456".
int mr_image_size_check(int format, unsigned long width, unsigned long height, unsigned long max_side,
                        unsigned long long max_pixels, char *error, size_t error_size);

/// The name of a format: "PNG", "JPEG", "WebP", "image".
const char *mr_image_format_name(int format);

// MARK: - Decoding

/// Check zlib's Adler-32 of a PNG's image data as well as every chunk's CRC-32 (the tile path
/// leaves it out: the CRCs cover the same bytes; `compare` asks for it).
#define MR_DECODE_STRICT 1

/// Decodes a PNG, JPEG or WebP image into straight (not premultiplied) RGBA, 8 bits a channel,
/// rows packed. The header is probed and `mr_image_size_check(max_side, max_pixels)` applied
/// before any decoder allocates for the pixels. On success returns 0 and sets *out (malloc'd:
/// free with mr_image_free), *width and *height; on failure non-zero, with a short reason in
/// `error`. A JPEG that ends early fails ("JPEG data is truncated") rather than coming back half
/// grey; libjpeg's own memory (a progressive JPEG's coefficients) is capped as well.
int mr_image_decode(const unsigned char *data, size_t length, unsigned long max_side, unsigned long long max_pixels,
                    int flags, unsigned char **out, int *width, int *height, char *error, size_t error_size);

/// The same into the caller's buffer of `capacity` bytes, which must hold width * height * 4
/// (from `mr_image_probe`): no buffer of the decoder's own to copy from.
int mr_image_decode_into(const unsigned char *data, size_t length, unsigned long max_side, unsigned long long max_pixels,
                         int flags, unsigned char *buffer, size_t capacity, int *width, int *height, char *error,
                         size_t error_size);

/// Frees what this module allocated for the caller.
void mr_image_free(void *p);

// MARK: - Encoding

/// Receives encoded bytes; returns 0 on success.
typedef int (*mr_png_write_fn)(void *closure, const unsigned char *data, size_t length);

/// PNG in bands that threads deflate at once (see png_encode.c): `mr_png_band_rows` gives the
/// rows of a band (from the image's size alone), `mr_png_encode_band_argb32` (Cairo's ARGB32,
/// premultiplied, native-endian) or `mr_png_encode_band_rgba` (straight RGBA, rows packed; a fully
/// transparent pixel's colour written as 0) encodes band `band` into `out`, and `mr_png_assemble`
/// writes the file from all of them in order. RGB when `opaque` (every pixel opaque), else RGBA
/// un-premultiplied; the SUB filter, zlib `level`. Each returns 0 on success.
struct mr_png_band {
    unsigned char *bytes;   // the band's deflate stream (malloc'd: mr_png_band_free)
    size_t length;
    unsigned long adler;    // Adler-32 of its filtered rows
    size_t raw_length;      // bytes of its filtered rows
};
int mr_png_band_rows(int width, int opaque);
int mr_png_encode_band_argb32(const unsigned char *data, int width, int height, int stride, int opaque, int level,
                              int band, int rows_per_band, struct mr_png_band *out);
int mr_png_encode_band_rgba(const unsigned char *rgba, int width, int height, int opaque, int level, int band,
                            int rows_per_band, struct mr_png_band *out);
int mr_png_assemble(int width, int height, int opaque, int level, const struct mr_png_band *bands, int count,
                    mr_png_write_fn write, void *closure);
void mr_png_band_free(struct mr_png_band *band);

/// 1 when every pixel of straight RGBA (rows packed) is opaque.
int mr_rgba_is_opaque(const unsigned char *rgba, int width, int height);

/// 1 when every pixel of a Cairo ARGB32 image is opaque (written without an alpha channel).
int mr_argb32_is_opaque(const unsigned char *data, int width, int height, int stride);

/// One row of Cairo's ARGB32 (premultiplied, native-endian) as straight RGB (opaque) or RGBA
/// bytes, un-premultiplied with rounding; the one conversion of the PNG, JPEG and WebP writers.
/// Returns the byte after the last one written.
unsigned char *mr_unpremultiply_row(const uint32_t *row, int width, int opaque, unsigned char *out);

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

// MARK: - zlib

/// zlib's CRC-32 (ISO 3309, as PNG and gzip use it) of `length` bytes, continuing from `crc`
/// (0 to start).
uint32_t mr_crc32(uint32_t crc, const unsigned char *data, size_t length);

/// Inflates gzip (or zlib) data to at most `limit` bytes. Returns 0 and a malloc'd buffer in *out
/// (free with mr_image_free); 1 when the data is corrupt or truncated; 2 when it inflates to more
/// than `limit` bytes (no more than limit + 1 bytes are ever allocated).
int mr_gunzip(const unsigned char *data, size_t length, size_t limit, unsigned char **out, size_t *out_length);

#endif
