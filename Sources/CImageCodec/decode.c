// The one decoder (PNG, JPEG, WebP to straight RGBA) with its header check and size policy, and
// zlib's CRC-32 and inflate. See mr_image_codec.h.
#include "mr_image_codec.h"
#include <stdio.h> // before jpeglib.h, which uses FILE
#include <jpeglib.h>
#include <jerror.h> // JWRN_JPEG_EOF
#include <png.h>
#include <limits.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <webp/decode.h>
#include <zlib.h>

void mr_image_free(void *p) { free(p); }

static int fail(char *error, size_t size, const char *what) {
    if (error && size) { snprintf(error, size, "%s", what); }
    return 1;
}

const char *mr_image_format_name(int format) {
    switch (format) {
    case MR_IMAGE_PNG: return "PNG";
    case MR_IMAGE_JPEG: return "JPEG";
    case MR_IMAGE_WEBP: return "WebP";
    default: return "image";
    }
}

int mr_image_size_check(int format, unsigned long width, unsigned long height, unsigned long max_side,
                        unsigned long long max_pixels, char *error, size_t size) {
    const char *name = mr_image_format_name(format);
    if (width < 1 || height < 1 || (max_side && (width > max_side || height > max_side))) {
        if (error && size) {
            if (max_side) snprintf(error, size, "%s is %lux%lu pixels, outside 1x1...%lux%lu", name, width, height, max_side, max_side);
            else snprintf(error, size, "%s is %lux%lu pixels", name, width, height);
        }
        return 1;
    }
    unsigned long long pixels = (unsigned long long)width * height;
    if (max_pixels && pixels > max_pixels) {
        if (error && size) {
            snprintf(error, size, "%s is %lux%lu = %llu pixels, more than the limit of %llu", name, width, height, pixels, max_pixels);
        }
        return 1;
    }
    return 0;
}

/// The size policy of the decoders below: the side limit they were given (pixels are checked
/// from the header by mr_image_decode before they are called).
static int check_size(const char *format, unsigned long width, unsigned long height, int max_side,
                      char *error, size_t size) {
    int f = format[0] == 'P' ? MR_IMAGE_PNG : format[0] == 'J' ? MR_IMAGE_JPEG : MR_IMAGE_WEBP;
    return mr_image_size_check(f, width, height, (unsigned long)max_side, 0, error, size);
}

static unsigned long be32(const unsigned char *p) {
    return ((unsigned long)p[0] << 24) | ((unsigned long)p[1] << 16) | ((unsigned long)p[2] << 8) | p[3];
}

/// The frame header (SOF0...SOF15, not DHT, JPG or DAC) found by walking the markers from SOI;
/// 0 and its size, or 1 when the data ends or scans begin first.
static int jpeg_frame_size(const unsigned char *d, size_t n, unsigned long *w, unsigned long *h) {
    size_t i = 2;
    while (i + 1 < n) {
        if (d[i] != 0xFF) return 1;
        unsigned char m = d[i + 1];
        if (m == 0xFF) { i++; continue; }                          // fill byte
        if (m == 0x01 || m == 0xD8 || (m >= 0xD0 && m <= 0xD7)) { i += 2; continue; } // no length
        if (m == 0xD9 || m == 0xDA) return 1;                       // EOI or a scan before any frame
        if (i + 4 > n) return 1;
        size_t len = ((size_t)d[i + 2] << 8) | d[i + 3];
        if (len < 2) return 1;
        if (m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC) {
            if (len < 7 || i + 9 > n) return 1;
            *h = ((unsigned long)d[i + 5] << 8) | d[i + 6];
            *w = ((unsigned long)d[i + 7] << 8) | d[i + 8];
            return 0;
        }
        i += 2 + len;
    }
    return 1;
}

int mr_image_probe(const unsigned char *data, size_t length, int *format, unsigned long *width, unsigned long *height,
                   char *error, size_t esize) {
    *format = MR_IMAGE_UNKNOWN; *width = 0; *height = 0;
    if (length >= 8 && memcmp(data, "\x89PNG\r\n\x1a\n", 8) == 0) {
        *format = MR_IMAGE_PNG;
        // Signature, length, "IHDR", width, height (big-endian).
        if (length < 24 || memcmp(data + 12, "IHDR", 4) != 0) return fail(error, esize, "PNG has no IHDR chunk first");
        *width = be32(data + 16); *height = be32(data + 20);
        return 0;
    }
    if (length >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF) {
        *format = MR_IMAGE_JPEG;
        if (jpeg_frame_size(data, length, width, height)) return fail(error, esize, "JPEG has no frame header");
        return 0;
    }
    if (length >= 12 && memcmp(data, "RIFF", 4) == 0 && memcmp(data + 8, "WEBP", 4) == 0) {
        *format = MR_IMAGE_WEBP;
        int w = 0, h = 0;
        if (!WebPGetInfo(data, length, &w, &h)) return fail(error, esize, "not a valid WebP image");
        if (w <= 0 || h <= 0) return fail(error, esize, "WebP size out of range");
        *width = (unsigned long)w; *height = (unsigned long)h;
        return 0;
    }
    return fail(error, esize, "not a PNG, JPEG or WebP image");
}

uint32_t mr_crc32(uint32_t crc, const unsigned char *data, size_t length) {
    // zlib's crc32 takes a uInt length: in slices.
    while (length > 0) {
        uInt n = length > (1u << 30) ? (1u << 30) : (uInt)length;
        crc = (uint32_t)crc32(crc, data, n);
        data += n; length -= n;
    }
    return crc;
}

/// Where a decoder puts the pixels: the caller's buffer (`given`, `cap` bytes), or one it mallocs.
struct dest { unsigned char *given; size_t cap; };

static unsigned char *dest_alloc(const struct dest *d, size_t need) {
    if (d->given) return need <= d->cap ? d->given : NULL;
    return malloc(need);
}

static void dest_free(const struct dest *d, unsigned char *p) {
    if (p && p != d->given) free(p);
}

// PNG through libpng's simplified API (no longjmp reaches us: it reports failure by return value).
static int decode_png_simplified(const unsigned char *data, size_t length, int max_side, const struct dest *d,
                                 unsigned char **out, int *w, int *h, char *error, size_t esize) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, data, length)) return fail(error, esize, image.message);
    image.format = PNG_FORMAT_RGBA;
    if (check_size("PNG", image.width, image.height, max_side, error, esize)) {
        png_image_free(&image);
        return 1;
    }
    // The size in size_t (PNG_IMAGE_SIZE is 32-bit arithmetic).
    size_t stride = (size_t)image.width * 4;
    unsigned char *buf = dest_alloc(d, stride * image.height);
    if (!buf) { png_image_free(&image); return fail(error, esize, "out of memory"); }
    if (!png_image_finish_read(&image, NULL, buf, (png_int_32)stride, NULL)) {
        dest_free(d, buf);
        return fail(error, esize, image.message);
    }
    *out = buf; *w = (int)image.width; *h = (int)image.height;
    return 0;
}

// The fast path, for the PNGs tile servers send: 8-bit RGB, RGBA or palette, not interlaced, no
// colour-space chunks (gAMA, cHRM, iCCP, sRGB), so the simplified API would only expand them to
// RGBA and the bytes are the same. Two things it does not do: libpng's filler transform (a byte
// loop, a third of the decode) is replaced by `expand_rgb` below, and the zlib stream's Adler-32
// is not checked. That is safe: every chunk's CRC-32, which covers the same compressed bytes, is
// still checked, and a stream that ends early still fails ("Not enough image data").
struct png_src {
    const unsigned char *data;
    size_t length, offset;
    jmp_buf jump;
    char message[200];
};

static void png_src_read(png_structp png, png_bytep out, size_t n) {
    struct png_src *s = png_get_io_ptr(png);
    if (n > s->length - s->offset) png_error(png, "PNG data is truncated");
    memcpy(out, s->data + s->offset, n);
    s->offset += n;
}

static void png_src_error(png_structp png, png_const_charp msg) {
    struct png_src *s = png_get_error_ptr(png);
    snprintf(s->message, sizeof s->message, "%s", msg);
    longjmp(s->jump, 1);
}

static void png_src_warning(png_structp png, png_const_charp msg) { (void)png; (void)msg; }

/// RGB to RGBA with alpha 255, four pixels (three 32-bit loads, four stores) a step. Words are
/// little-endian on the machines maprender is built for; elsewhere the byte loop.
static void expand_rgb(const unsigned char *restrict src, unsigned char *restrict dst, size_t width) {
    size_t x = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const uint32_t alpha = 0xFF000000u;
    for (; x + 4 <= width; x += 4) {
        uint32_t w0, w1, w2, p[4];
        memcpy(&w0, src + 3 * x, 4); memcpy(&w1, src + 3 * x + 4, 4); memcpy(&w2, src + 3 * x + 8, 4);
        p[0] = w0 | alpha;                       // R0 G0 B0
        p[1] = (w0 >> 24) | (w1 << 8) | alpha;   // R1 | G1 B1
        p[2] = (w1 >> 16) | (w2 << 16) | alpha;  // R2 G2 | B2
        p[3] = (w2 >> 8) | alpha;                // R3 G3 B3
        memcpy(dst + 4 * x, p, 16);
    }
#endif
    for (; x < width; x++) {
        dst[4 * x] = src[3 * x]; dst[4 * x + 1] = src[3 * x + 1]; dst[4 * x + 2] = src[3 * x + 2]; dst[4 * x + 3] = 255;
    }
}

/// 0: decoded; 1: failed (error set); 2: not a PNG for the fast path (the simplified API decodes it).
static int decode_png_fast(const unsigned char *data, size_t length, int max_side, int strict, const struct dest *d,
                           unsigned char **out, int *w, int *h, char *error, size_t esize) {
    struct png_src src;
    src.data = data; src.length = length; src.offset = 0; src.message[0] = 0;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &src, png_src_error, png_src_warning);
    if (!png) return 2;
    png_infop info = png_create_info_struct(png);
    unsigned char *volatile buf = NULL, *volatile row = NULL;
    volatile int result = 2;
    if (setjmp(src.jump)) {
        png_destroy_read_struct(&png, info ? &info : NULL, NULL);
        dest_free(d, buf); free(row);
        if (result == 2) return 2; // failed while reading the header: let the simplified API say why
        return fail(error, esize, src.message);
    }
    if (!info) png_error(png, "out of memory");
    png_set_read_fn(png, &src, png_src_read);
#ifdef PNG_IGNORE_ADLER32
    if (!strict) png_set_option(png, PNG_IGNORE_ADLER32, PNG_OPTION_ON);
#else
    (void)strict;
#endif
    png_read_info(png, info);
    png_uint_32 width = 0, height = 0;
    int depth = 0, type = 0, interlace = 0;
    png_get_IHDR(png, info, &width, &height, &depth, &type, &interlace, NULL, NULL);
    int simple = depth == 8 && interlace == PNG_INTERLACE_NONE
        && (type == PNG_COLOR_TYPE_RGB_ALPHA || type == PNG_COLOR_TYPE_PALETTE
            || (type == PNG_COLOR_TYPE_RGB && !png_get_valid(png, info, PNG_INFO_tRNS))) // RGB + tRNS: a colour key
        && !png_get_valid(png, info, PNG_INFO_gAMA | PNG_INFO_cHRM | PNG_INFO_iCCP | PNG_INFO_sRGB)
        && width > 0 && height > 0 && width <= (png_uint_32)max_side && height <= (png_uint_32)max_side;
    if (!simple) { png_destroy_read_struct(&png, &info, NULL); return 2; }
    result = 1;
    if (type == PNG_COLOR_TYPE_PALETTE) {
        png_set_palette_to_rgb(png);
        if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
    }
    png_read_update_info(png, info);
    int channels = png_get_channels(png, info);
    if (channels != 3 && channels != 4) png_error(png, "unexpected PNG layout");
    size_t stride = (size_t)width * 4;
    buf = dest_alloc(d, stride * height);
    if (channels == 3) row = malloc((size_t)width * 3);
    if (!buf || (channels == 3 && !row)) png_error(png, "out of memory");
    for (png_uint_32 y = 0; y < height; y++) {
        unsigned char *dst = buf + stride * y;
        if (channels == 4) {
            png_read_row(png, dst, NULL);
        } else {
            png_read_row(png, row, NULL);
            expand_rgb(row, dst, width);
        }
    }
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    free(row);
    *out = buf; *w = (int)width; *h = (int)height;
    return 0;
}

static int decode_png(const unsigned char *data, size_t length, int max_side, int strict, const struct dest *d,
                      unsigned char **out, int *w, int *h, char *error, size_t esize) {
    int rc = decode_png_fast(data, length, max_side, strict, d, out, w, h, error, esize);
    if (rc != 2) return rc;
    return decode_png_simplified(data, length, max_side, d, out, w, h, error, esize);
}

struct jpeg_err {
    struct jpeg_error_mgr mgr;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
    int truncated; // libjpeg warned "Premature end of JPEG file" and filled the rest with grey
};

static void jpeg_error_exit(j_common_ptr cinfo) {
    struct jpeg_err *e = (struct jpeg_err *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, e->message);
    longjmp(e->jump, 1);
}

static void jpeg_silence(j_common_ptr cinfo, int level) {
    struct jpeg_err *e = (struct jpeg_err *)cinfo->err;
    if (level < 0 && cinfo->err->msg_code == JWRN_JPEG_EOF) e->truncated = 1;
}

/// The most memory libjpeg may use for one tile beyond the output rows (progressive JPEGs keep
/// their coefficients): 4096x4096 needs about 100 MB at most.
#define MR_JPEG_MAX_MEMORY (128L << 20)

static int decode_jpeg(const unsigned char *data, size_t length, int max_side, const struct dest *d, unsigned char **out,
                       int *w, int *h, char *error, size_t esize) {
    struct jpeg_decompress_struct cinfo;
    struct jpeg_err err;
    unsigned char *volatile buf = NULL;
    cinfo.err = jpeg_std_error(&err.mgr);
    err.mgr.error_exit = jpeg_error_exit;
    err.mgr.emit_message = jpeg_silence;
    err.truncated = 0;
    if (setjmp(err.jump)) {
        jpeg_destroy_decompress(&cinfo);
        dest_free(d, buf);
        return fail(error, esize, err.message);
    }
    jpeg_create_decompress(&cinfo);
    cinfo.mem->max_memory_to_use = MR_JPEG_MAX_MEMORY;
    jpeg_mem_src(&cinfo, data, (unsigned long)length);
    jpeg_read_header(&cinfo, TRUE);
    // The size from the frame header, before jpeg_start_decompress allocates for it.
    if (check_size("JPEG", cinfo.image_width, cinfo.image_height, max_side, error, esize)) {
        jpeg_destroy_decompress(&cinfo);
        return 1;
    }
    cinfo.out_color_space = JCS_EXT_RGBA;
    jpeg_start_decompress(&cinfo);
    if (check_size("JPEG", cinfo.output_width, cinfo.output_height, max_side, error, esize)) {
        jpeg_destroy_decompress(&cinfo);
        return 1;
    }
    size_t stride = (size_t)cinfo.output_width * 4;
    buf = dest_alloc(d, stride * cinfo.output_height);
    if (!buf) { jpeg_destroy_decompress(&cinfo); return fail(error, esize, "out of memory"); }
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = buf + stride * cinfo.output_scanline;
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    if (err.truncated) {
        jpeg_destroy_decompress(&cinfo);
        dest_free(d, buf);
        return fail(error, esize, "JPEG data is truncated");
    }
    jpeg_finish_decompress(&cinfo);
    *w = (int)cinfo.output_width; *h = (int)cinfo.output_height;
    jpeg_destroy_decompress(&cinfo);
    *out = buf;
    return 0;
}

static int decode_webp(const unsigned char *data, size_t length, int max_side, const struct dest *d, unsigned char **out,
                       int *w, int *h, char *error, size_t esize) {
    int width = 0, height = 0;
    if (!WebPGetInfo(data, length, &width, &height)) return fail(error, esize, "not a valid WebP image");
    if (width <= 0 || height <= 0) return fail(error, esize, "WebP size out of range");
    if (check_size("WebP", (unsigned long)width, (unsigned long)height, max_side, error, esize)) return 1;
    size_t size = (size_t)width * height * 4;
    unsigned char *buf = dest_alloc(d, size);
    if (!buf) return fail(error, esize, "out of memory");
    if (!WebPDecodeRGBAInto(data, length, buf, size, width * 4)) {
        dest_free(d, buf);
        return fail(error, esize, "WebP data is corrupt");
    }
    *out = buf; *w = width; *h = height;
    return 0;
}

static int decode(const unsigned char *data, size_t length, unsigned long max_side, unsigned long long max_pixels,
                  int flags, const struct dest *d, unsigned char **out, int *width, int *height, char *error,
                  size_t error_size) {
    *out = NULL;
    // Sides are int for the decoders (and a row's bytes int32 for libpng): 2^24 at most,
    // whatever the caller allows; the pixel limit is the caller's.
    if (max_side < 1 || max_side > (1ul << 24)) max_side = 1ul << 24;
    int format = 0;
    unsigned long w = 0, h = 0;
    // The header first: an image past the limits is refused before any decoder allocates.
    if (mr_image_probe(data, length, &format, &w, &h, error, error_size)) return 1;
    if (mr_image_size_check(format, w, h, max_side, max_pixels, error, error_size)) return 1;
    int side = (int)max_side;
    switch (format) {
    case MR_IMAGE_PNG: return decode_png(data, length, side, flags & MR_DECODE_STRICT, d, out, width, height, error, error_size);
    case MR_IMAGE_JPEG: return decode_jpeg(data, length, side, d, out, width, height, error, error_size);
    default: return decode_webp(data, length, side, d, out, width, height, error, error_size);
    }
}

int mr_image_decode(const unsigned char *data, size_t length, unsigned long max_side, unsigned long long max_pixels,
                    int flags, unsigned char **out, int *width, int *height, char *error, size_t error_size) {
    struct dest d = { NULL, 0 };
    return decode(data, length, max_side, max_pixels, flags, &d, out, width, height, error, error_size);
}

int mr_image_decode_into(const unsigned char *data, size_t length, unsigned long max_side, unsigned long long max_pixels,
                         int flags, unsigned char *buffer, size_t capacity, int *width, int *height, char *error,
                         size_t error_size) {
    struct dest d = { buffer, capacity };
    unsigned char *out = NULL;
    if (!buffer) return fail(error, error_size, "no buffer");
    return decode(data, length, max_side, max_pixels, flags, &d, &out, width, height, error, error_size);
}

int mr_gunzip(const unsigned char *data, size_t length, size_t limit, unsigned char **out, size_t *out_length) {
    z_stream s;
    memset(&s, 0, sizeof s);
    if (length > UINT_MAX) return 1;
    // 32 + MAX_WBITS: detect gzip or zlib headers.
    if (inflateInit2(&s, 32 + MAX_WBITS) != Z_OK) return 1;
    // Start small and double, never past `limit` (+1 byte, to tell "exactly the limit" from "more").
    size_t cap = length < limit / 4 ? length * 4 + 1024 : limit + 1, used = 0;
    if (cap > limit + 1) cap = limit + 1;
    unsigned char *buf = malloc(cap);
    if (!buf) { inflateEnd(&s); return 1; }
    s.next_in = (unsigned char *)data;
    s.avail_in = (uInt)length;
    int rc;
    do {
        if (used == cap) {
            if (cap > limit) { free(buf); inflateEnd(&s); return 2; } // inflates past the limit
            size_t bigger_cap = cap > (limit + 1) / 2 ? limit + 1 : cap * 2;
            unsigned char *bigger = realloc(buf, bigger_cap);
            if (!bigger) { free(buf); inflateEnd(&s); return 1; }
            buf = bigger; cap = bigger_cap;
        }
        s.next_out = buf + used;
        s.avail_out = (uInt)(cap - used);
        rc = inflate(&s, Z_NO_FLUSH);
        used = cap - s.avail_out;
        if (rc != Z_OK && rc != Z_STREAM_END) { free(buf); inflateEnd(&s); return 1; }
        if (rc == Z_OK && s.avail_in == 0 && s.avail_out != 0) { free(buf); inflateEnd(&s); return 1; } // truncated
    } while (rc != Z_STREAM_END);
    inflateEnd(&s);
    if (used > limit) { free(buf); return 2; }
    *out = buf; *out_length = used;
    return 0;
}
