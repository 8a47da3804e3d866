// PNG encoding through libpng (the rendered map from Cairo's ARGB32, and straight RGBA), in C
// because libpng reports errors with longjmp, which Swift cannot catch. Why not cairo_surface_write_to_png: Cairo tries every filter at zlib level 6,
// which costs about twice as long as the SUB filter alone for a file under 1% larger (measured
// on an 800x600 map: 12.6 ms vs 6.4 ms), and PNG encoding was half the CPU of a batch of maps.
#include "mr_image_codec.h"
#include <png.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct mr_png_sink {
    mr_png_write_fn write;
    void *closure;
    int failed;
};

static void mr_png_write_cb(png_structp png, png_bytep data, png_size_t length) {
    struct mr_png_sink *sink = (struct mr_png_sink *)png_get_io_ptr(png);
    if (!sink->failed && sink->write(sink->closure, data, length) != 0) sink->failed = 1;
}

static void mr_png_flush_cb(png_structp png) { (void)png; }

/// Fills one row of `channels` bytes a pixel: row `y` of the source.
typedef void (*mr_png_row_fn)(const void *source, int y, int width, int opaque, unsigned char *line);

/// The one PNG writer: RGB (opaque) or RGBA rows from `row`, the SUB filter, zlib `level`.
static int write_png(int width, int height, int opaque, int level, mr_png_row_fn row, const void *source,
                     mr_png_write_fn write, void *closure) {
    if (width <= 0 || height <= 0) return 1;
    const int channels = opaque ? 3 : 4;
    unsigned char *line = malloc((size_t)width * channels);
    if (!line) return 1;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    struct mr_png_sink sink = { write, closure, 0 };
    if (!png || !info) {
        png_destroy_write_struct(&png, &info);
        free(line);
        return 1;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        free(line);
        return 1;
    }
    png_set_write_fn(png, &sink, mr_png_write_cb, mr_png_flush_cb);
    png_set_compression_level(png, level);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_SUB);
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8,
                 opaque ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_RGB_ALPHA,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_BASE, PNG_FILTER_TYPE_BASE);
    png_write_info(png, info);
    for (int y = 0; y < height; y++) {
        row(source, y, width, opaque, line);
        png_write_row(png, line);
    }
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    free(line);
    return sink.failed;
}

struct argb32_source { const unsigned char *data; int stride; };

static void argb32_row(const void *source, int y, int width, int opaque, unsigned char *line) {
    const struct argb32_source *s = source;
    mr_unpremultiply_row((const uint32_t *)(s->data + (size_t)y * s->stride), width, opaque, line);
}

int mr_png_write_argb32(const unsigned char *data, int width, int height, int stride,
                        int level, mr_png_write_fn write, void *closure) {
    if (width <= 0 || height <= 0) return 1;
    struct argb32_source source = { data, stride };
    return write_png(width, height, mr_argb32_is_opaque(data, width, height, stride), level, argb32_row, &source,
                     write, closure);
}

static void rgba_row(const void *source, int y, int width, int opaque, unsigned char *line) {
    const unsigned char *p = (const unsigned char *)source + (size_t)y * width * 4;
    for (int x = 0; x < width; x++, p += 4) {
        unsigned char a = p[3];
        *line++ = a ? p[0] : 0;
        *line++ = a ? p[1] : 0;
        *line++ = a ? p[2] : 0;
        if (!opaque) *line++ = a;
    }
}

int mr_png_write_rgba(const unsigned char *rgba, int width, int height, int level, mr_png_write_fn write, void *closure) {
    if (width <= 0 || height <= 0) return 1;
    int opaque = 1;
    size_t n = (size_t)width * height;
    for (size_t i = 0; i < n && opaque; i++) opaque = rgba[4 * i + 3] == 0xff;
    return write_png(width, height, opaque, level, rgba_row, rgba, write, closure);
}

unsigned char *mr_unpremultiply_row(const uint32_t *row, int width, int opaque, unsigned char *out) {
    if (opaque) {
        // Every pixel opaque (the caller checked): nothing to divide, three bytes a pixel. (A
        // third of the per-pixel branches' cost; most maps are opaque.)
        for (int x = 0; x < width; x++) {
            uint32_t p = row[x];
            out[0] = (unsigned char)(p >> 16);
            out[1] = (unsigned char)(p >> 8);
            out[2] = (unsigned char)p;
            out += 3;
        }
        return out;
    }
    for (int x = 0; x < width; x++) {
        uint32_t p = row[x];
        unsigned int a = p >> 24, r = (p >> 16) & 0xff, g = (p >> 8) & 0xff, b = p & 0xff;
        if (a != 0xff && a != 0) {
            // Un-premultiply with rounding, as Cairo does.
            r = (r * 255 + a / 2) / a;
            g = (g * 255 + a / 2) / a;
            b = (b * 255 + a / 2) / a;
        } else if (a == 0) {
            r = g = b = 0;
        }
        *out++ = (unsigned char)r;
        *out++ = (unsigned char)g;
        *out++ = (unsigned char)b;
        if (!opaque) *out++ = (unsigned char)a;
    }
    return out;
}

int mr_argb32_is_opaque(const unsigned char *data, int width, int height, int stride) {
    for (int y = 0; y < height; y++) {
        const uint32_t *row = (const uint32_t *)(data + (size_t)y * stride);
        for (int x = 0; x < width; x++) {
            if ((row[x] >> 24) != 0xff) return 0;
        }
    }
    return 1;
}
