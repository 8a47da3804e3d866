// Tile decoding through libpng, libjpeg-turbo and libwebp, and gzip through zlib. In C because
// libpng and libjpeg report errors with longjmp, which Swift cannot catch.
#include "mr_tile_codecs.h"
#include <stdio.h> // before jpeglib.h, which uses FILE
#include <jpeglib.h>
#include <png.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <webp/decode.h>
#include <zlib.h>

void mr_tile_free(void *p) { free(p); }

static int fail(char *error, size_t size, const char *what) {
    if (error && size) { snprintf(error, size, "%s", what); }
    return 1;
}

// PNG through libpng's simplified API (no longjmp reaches us: it reports failure by return value).
static int decode_png(const unsigned char *data, size_t length, unsigned char **out, int *w, int *h,
                      char *error, size_t esize) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, data, length)) return fail(error, esize, image.message);
    image.format = PNG_FORMAT_RGBA;
    if (image.width == 0 || image.height == 0 || image.width > 8192 || image.height > 8192) {
        png_image_free(&image);
        return fail(error, esize, "PNG size out of range");
    }
    unsigned char *buf = malloc(PNG_IMAGE_SIZE(image));
    if (!buf) { png_image_free(&image); return fail(error, esize, "out of memory"); }
    if (!png_image_finish_read(&image, NULL, buf, 0, NULL)) {
        free(buf);
        return fail(error, esize, image.message);
    }
    *out = buf; *w = (int)image.width; *h = (int)image.height;
    return 0;
}

struct jpeg_err {
    struct jpeg_error_mgr mgr;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
};

static void jpeg_error_exit(j_common_ptr cinfo) {
    struct jpeg_err *e = (struct jpeg_err *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, e->message);
    longjmp(e->jump, 1);
}

static void jpeg_silence(j_common_ptr cinfo, int level) { (void)cinfo; (void)level; }

static int decode_jpeg(const unsigned char *data, size_t length, unsigned char **out, int *w, int *h,
                       char *error, size_t esize) {
    struct jpeg_decompress_struct cinfo;
    struct jpeg_err err;
    unsigned char *volatile buf = NULL;
    cinfo.err = jpeg_std_error(&err.mgr);
    err.mgr.error_exit = jpeg_error_exit;
    err.mgr.emit_message = jpeg_silence;
    if (setjmp(err.jump)) {
        jpeg_destroy_decompress(&cinfo);
        free(buf);
        return fail(error, esize, err.message);
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)length);
    jpeg_read_header(&cinfo, TRUE);
    cinfo.out_color_space = JCS_EXT_RGBA;
    jpeg_start_decompress(&cinfo);
    if (cinfo.output_width == 0 || cinfo.output_height == 0 || cinfo.output_width > 8192 || cinfo.output_height > 8192) {
        jpeg_destroy_decompress(&cinfo);
        return fail(error, esize, "JPEG size out of range");
    }
    size_t stride = (size_t)cinfo.output_width * 4;
    buf = malloc(stride * cinfo.output_height);
    if (!buf) { jpeg_destroy_decompress(&cinfo); return fail(error, esize, "out of memory"); }
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = buf + stride * cinfo.output_scanline;
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_decompress(&cinfo);
    *w = (int)cinfo.output_width; *h = (int)cinfo.output_height;
    jpeg_destroy_decompress(&cinfo);
    *out = buf;
    return 0;
}

static int decode_webp(const unsigned char *data, size_t length, unsigned char **out, int *w, int *h,
                       char *error, size_t esize) {
    int width = 0, height = 0;
    if (!WebPGetInfo(data, length, &width, &height)) return fail(error, esize, "not a valid WebP image");
    if (width <= 0 || height <= 0 || width > 8192 || height > 8192) return fail(error, esize, "WebP size out of range");
    size_t size = (size_t)width * height * 4;
    unsigned char *buf = malloc(size);
    if (!buf) return fail(error, esize, "out of memory");
    if (!WebPDecodeRGBAInto(data, length, buf, size, width * 4)) {
        free(buf);
        return fail(error, esize, "WebP data is corrupt");
    }
    *out = buf; *w = width; *h = height;
    return 0;
}

int mr_tile_decode(const unsigned char *data, size_t length, unsigned char **out, int *width, int *height,
                   char *error, size_t error_size) {
    *out = NULL;
    if (length >= 8 && memcmp(data, "\x89PNG\r\n\x1a\n", 8) == 0)
        return decode_png(data, length, out, width, height, error, error_size);
    if (length >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF)
        return decode_jpeg(data, length, out, width, height, error, error_size);
    if (length >= 12 && memcmp(data, "RIFF", 4) == 0 && memcmp(data + 8, "WEBP", 4) == 0)
        return decode_webp(data, length, out, width, height, error, error_size);
    return fail(error, error_size, "not a PNG, JPEG or WebP image");
}

int mr_gunzip(const unsigned char *data, size_t length, unsigned char **out, size_t *out_length) {
    z_stream s;
    memset(&s, 0, sizeof s);
    // 32 + MAX_WBITS: detect gzip or zlib headers.
    if (inflateInit2(&s, 32 + MAX_WBITS) != Z_OK) return 1;
    size_t cap = length * 4 + 1024, used = 0;
    unsigned char *buf = malloc(cap);
    if (!buf) { inflateEnd(&s); return 1; }
    s.next_in = (unsigned char *)data;
    s.avail_in = (uInt)length;
    int rc;
    do {
        if (used == cap) {
            if (cap > ((size_t)1 << 31)) { free(buf); inflateEnd(&s); return 1; }
            cap *= 2;
            unsigned char *bigger = realloc(buf, cap);
            if (!bigger) { free(buf); inflateEnd(&s); return 1; }
            buf = bigger;
        }
        s.next_out = buf + used;
        s.avail_out = (uInt)(cap - used);
        rc = inflate(&s, Z_NO_FLUSH);
        used = cap - s.avail_out;
        if (rc != Z_OK && rc != Z_STREAM_END) { free(buf); inflateEnd(&s); return 1; }
        if (rc == Z_OK && s.avail_in == 0 && s.avail_out != 0) { free(buf); inflateEnd(&s); return 1; } // truncated
    } while (rc != Z_STREAM_END);
    inflateEnd(&s);
    *out = buf; *out_length = used;
    return 0;
}
