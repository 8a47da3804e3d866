// PNG encoding of the rendered map (Cairo's ARGB32) and of straight RGBA, with zlib, in bands
// that threads deflate at once, as pigz does for gzip.
//
// Why by hand and not libpng (or cairo_surface_write_to_png): PNG encoding was a sixth to a fifth
// of a map's time (a 1024x768 choropleth: 92 M of 408 M instructions, 66 M of them in deflate),
// and libpng deflates one row after the other on one thread; no PNG library on Debian deflates in
// parallel. What is written by hand is only the framing (signature, IHDR, IDAT, IEND, each with
// zlib's CRC-32) and the SUB filter; deflate, CRC-32 and Adler-32 are zlib's.
//
// The image is cut into bands of about `MR_PNG_BAND_BYTES` of filtered rows, a count fixed by the
// image's size alone (never by the threads), so the bytes are the same at any thread count. Each
// band is a raw deflate stream ended by a sync flush (the last by Z_FINISH), primed with the 32 KB
// of filtered rows before it as its dictionary, so the seams cost about nothing in size; the
// bands' streams joined are one deflate stream, in one zlib wrapper whose Adler-32 is combined
// from the bands'. One filter for every row: SUB, at zlib `level` with Z_FILTERED (what libpng
// chose for a filtered image). Cairo tries every filter at level 6, about twice as long as SUB
// alone for a file under 1% larger (an 800x600 map: 12.6 ms vs 6.4 ms).
#include "mr_image_codec.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/// Fills one row of `channels` bytes a pixel: row `y` of the source.
typedef void (*mr_png_row_fn)(const void *source, int y, int width, int opaque, unsigned char *line);

enum { MR_PNG_BAND_BYTES = 256 * 1024, MR_PNG_WINDOW = 32768 };

static size_t row_bytes(int width, int opaque) { return 1 + (size_t)width * (opaque ? 3 : 4); }

int mr_png_band_rows(int width, int opaque) {
    size_t rows = MR_PNG_BAND_BYTES / row_bytes(width, opaque);
    return rows < 1 ? 1 : rows > 1 << 20 ? 1 << 20 : (int)rows;
}

/// Row `y` filtered: the filter byte (1, SUB) and each byte less the one a pixel before it.
static void filtered_row(mr_png_row_fn row, const void *source, int y, int width, int opaque, unsigned char *line) {
    const size_t bpp = opaque ? 3 : 4, n = (size_t)width * bpp;
    unsigned char *raw = line + 1;
    row(source, y, width, opaque, raw);
    for (size_t i = n; i-- > bpp;) raw[i] = (unsigned char)(raw[i] - raw[i - bpp]);
    line[0] = 1;
}

/// Deflates `length` bytes into `band`, growing its buffer if zlib's bound was short.
static int deflate_into(z_stream *z, unsigned char *in, size_t length, int flush, struct mr_png_band *band,
                        size_t *capacity) {
    z->next_in = in;
    z->avail_in = (uInt)length;
    for (;;) {
        if (*capacity - band->length < 64) {
            size_t grown = *capacity * 2 + 1024;
            unsigned char *b = realloc(band->bytes, grown);
            if (!b) return 1;
            band->bytes = b;
            *capacity = grown;
        }
        z->next_out = band->bytes + band->length;
        z->avail_out = (uInt)(*capacity - band->length);
        int rc = deflate(z, flush);
        band->length = (size_t)(z->next_out - band->bytes);
        if (rc == Z_STREAM_ERROR) return 1;
        if (z->avail_in == 0 && z->avail_out > 0 && (flush == Z_NO_FLUSH || flush == Z_SYNC_FLUSH)) return 0;
        if (flush == Z_FINISH && rc == Z_STREAM_END) return 0;
    }
}

/// Band `band` of the image (rows band * rows_per_band ..< the next band's first).
static int encode_band(mr_png_row_fn row, const void *source, int width, int height, int opaque, int level,
                       int band, int rows_per_band, struct mr_png_band *out) {
    memset(out, 0, sizeof *out);
    out->adler = adler32(0, NULL, 0);
    if (width <= 0 || height <= 0 || rows_per_band <= 0 || band < 0) return 1;
    const int y0 = band * rows_per_band;
    if (y0 >= height) return 1;
    const int y1 = height - y0 > rows_per_band ? y0 + rows_per_band : height;
    const int last = y1 == height;
    const size_t rb = row_bytes(width, opaque);
    unsigned char *line = malloc(rb);
    if (!line) return 1;
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, level, Z_DEFLATED, -15, 8, Z_FILTERED) != Z_OK) {
        free(line);
        return 1;
    }
    int failed = 0;
    // The dictionary: the filtered rows before the band, up to the 32 KB window.
    if (y0 > 0) {
        int before = (int)((MR_PNG_WINDOW + rb - 1) / rb);
        if (before > y0) before = y0;
        size_t dict_length = (size_t)before * rb;
        unsigned char *dict = malloc(dict_length);
        if (!dict) failed = 1;
        for (int k = 0; !failed && k < before; k++)
            filtered_row(row, source, y0 - before + k, width, opaque, dict + (size_t)k * rb);
        if (!failed) {
            size_t used = dict_length > MR_PNG_WINDOW ? MR_PNG_WINDOW : dict_length;
            failed = deflateSetDictionary(&z, dict + dict_length - used, (uInt)used) != Z_OK;
        }
        free(dict);
    }
    size_t capacity = deflateBound(&z, (uLong)(rb * (size_t)(y1 - y0))) + 1024;
    out->bytes = failed ? NULL : malloc(capacity);
    if (!out->bytes) failed = 1;
    for (int y = y0; !failed && y < y1; y++) {
        filtered_row(row, source, y, width, opaque, line);
        out->adler = adler32(out->adler, line, (uInt)rb);
        failed = deflate_into(&z, line, rb, Z_NO_FLUSH, out, &capacity);
    }
    if (!failed) failed = deflate_into(&z, NULL, 0, last ? Z_FINISH : Z_SYNC_FLUSH, out, &capacity);
    out->raw_length = rb * (size_t)(y1 - y0);
    deflateEnd(&z);
    free(line);
    if (failed) {
        free(out->bytes);
        out->bytes = NULL;
        out->length = 0;
    }
    return failed;
}

void mr_png_band_free(struct mr_png_band *band) {
    free(band->bytes);
    band->bytes = NULL;
    band->length = 0;
}

static void put32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)(v >> 24); p[1] = (unsigned char)(v >> 16); p[2] = (unsigned char)(v >> 8); p[3] = (unsigned char)v;
}

/// One chunk: length, type, the data in up to three pieces, CRC-32 of type and data.
static int write_chunk(const char *type, const unsigned char *a, size_t na, const unsigned char *b, size_t nb,
                       const unsigned char *c, size_t nc, mr_png_write_fn write, void *closure) {
    unsigned char head[8], tail[4];
    size_t length = na + nb + nc;
    if (length > 0x7fffffffu) return 1;
    put32(head, (uint32_t)length);
    memcpy(head + 4, type, 4);
    uLong crc = crc32(0, head + 4, 4);
    if (na) crc = crc32(crc, a, (uInt)na);
    if (nb) crc = crc32(crc, b, (uInt)nb);
    if (nc) crc = crc32(crc, c, (uInt)nc);
    put32(tail, (uint32_t)crc);
    if (write(closure, head, 8)) return 1;
    if (na && write(closure, a, na)) return 1;
    if (nb && write(closure, b, nb)) return 1;
    if (nc && write(closure, c, nc)) return 1;
    return write(closure, tail, 4);
}

int mr_png_assemble(int width, int height, int opaque, int level, const struct mr_png_band *bands, int count,
                    mr_png_write_fn write, void *closure) {
    if (width <= 0 || height <= 0 || count <= 0) return 1;
    static const unsigned char signature[8] = { 137, 80, 78, 71, 13, 10, 26, 10 };
    if (write(closure, signature, 8)) return 1;
    unsigned char ihdr[13];
    put32(ihdr, (uint32_t)width);
    put32(ihdr + 4, (uint32_t)height);
    ihdr[8] = 8;                  // bits a channel
    ihdr[9] = opaque ? 2 : 6;     // RGB or RGBA
    ihdr[10] = ihdr[11] = ihdr[12] = 0; // deflate, adaptive filtering, no interlace
    if (write_chunk("IHDR", ihdr, 13, NULL, 0, NULL, 0, write, closure)) return 1;
    // The zlib header (RFC 1950): deflate, 32 KB window, the level's FLEVEL, FCHECK.
    unsigned cmf = 0x78, flevel = level < 2 ? 0 : level < 6 ? 1 : level == 6 ? 2 : 3;
    unsigned flg = flevel << 6;
    flg += 31 - (cmf * 256 + flg) % 31;
    const unsigned char zhead[2] = { (unsigned char)cmf, (unsigned char)flg };
    uLong adler = bands[0].adler;
    for (int k = 1; k < count; k++) adler = adler32_combine(adler, bands[k].adler, (z_off_t)bands[k].raw_length);
    unsigned char ztail[4];
    put32(ztail, (uint32_t)adler);
    for (int k = 0; k < count; k++) {
        if (!bands[k].bytes) return 1;
        if (write_chunk("IDAT", k == 0 ? zhead : NULL, k == 0 ? 2 : 0, bands[k].bytes, bands[k].length,
                        k == count - 1 ? ztail : NULL, k == count - 1 ? 4 : 0, write, closure)) return 1;
    }
    return write_chunk("IEND", NULL, 0, NULL, 0, NULL, 0, write, closure);
}

struct argb32_source { const unsigned char *data; int stride; };

static void argb32_row(const void *source, int y, int width, int opaque, unsigned char *line) {
    const struct argb32_source *s = source;
    mr_unpremultiply_row((const uint32_t *)(s->data + (size_t)y * s->stride), width, opaque, line);
}

int mr_png_encode_band_argb32(const unsigned char *data, int width, int height, int stride, int opaque, int level,
                              int band, int rows_per_band, struct mr_png_band *out) {
    struct argb32_source source = { data, stride };
    return encode_band(argb32_row, &source, width, height, opaque, level, band, rows_per_band, out);
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

int mr_png_encode_band_rgba(const unsigned char *rgba, int width, int height, int opaque, int level, int band,
                            int rows_per_band, struct mr_png_band *out) {
    return encode_band(rgba_row, rgba, width, height, opaque, level, band, rows_per_band, out);
}

int mr_rgba_is_opaque(const unsigned char *rgba, int width, int height) {
    size_t n = (size_t)width * height;
    for (size_t i = 0; i < n; i++)
        if (rgba[4 * i + 3] != 0xff) return 0;
    return 1;
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
