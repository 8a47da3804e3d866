// JPEG and WebP encoding of the rendered map, through libjpeg-turbo and libwebp (the libraries
// already linked to decode raster tiles). In C because libjpeg reports errors with longjmp, which
// Swift cannot catch. Both encoders run with fixed settings on one thread, so the bytes depend
// only on the pixels and the quality: no time stamps, no metadata, no thread scheduling.
#include "mr_image_codec.h"
#include <stdio.h> // before jpeglib.h, which uses FILE
#include <jpeglib.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <webp/encode.h>

static int fail(char *error, size_t size, const char *what) {
    if (error && size) snprintf(error, size, "%s", what);
    return 1;
}

// MARK: - JPEG

struct mr_jpeg_err {
    struct jpeg_error_mgr mgr;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
};

static void mr_jpeg_error_exit(j_common_ptr cinfo) {
    struct mr_jpeg_err *e = (struct mr_jpeg_err *)cinfo->err;
    cinfo->err->format_message(cinfo, e->message);
    longjmp(e->jump, 1);
}

static void mr_jpeg_no_message(j_common_ptr cinfo, int level) { (void)cinfo; (void)level; }

// Kept outside the function's locals so that longjmp cannot leave them stale.
struct mr_jpeg_job {
    unsigned char *row;
    unsigned char *buffer;
    unsigned long length;
};

int mr_jpeg_write_argb32(const unsigned char *data, int width, int height, int stride, int quality,
                         unsigned char **out, size_t *out_length, char *error, size_t error_size) {
    if (width <= 0 || height <= 0) return fail(error, error_size, "empty image");
    if (width > JPEG_MAX_DIMENSION || height > JPEG_MAX_DIMENSION)
        return fail(error, error_size, "the image is larger than JPEG allows (65500 pixels per side)");
    if (quality < 1) quality = 1;
    if (quality > 100) quality = 100;
    struct mr_jpeg_job *job = calloc(1, sizeof *job);
    if (!job) return fail(error, error_size, "out of memory");
    job->row = malloc((size_t)width * 3);
    if (!job->row) { free(job); return fail(error, error_size, "out of memory"); }

    struct jpeg_compress_struct cinfo;
    struct mr_jpeg_err err;
    memset(&cinfo, 0, sizeof cinfo);
    cinfo.err = jpeg_std_error(&err.mgr);
    err.mgr.error_exit = mr_jpeg_error_exit;
    err.mgr.emit_message = mr_jpeg_no_message;
    if (setjmp(err.jump)) {
        jpeg_destroy_compress(&cinfo);
        free(job->buffer);
        free(job->row);
        free(job);
        return fail(error, error_size, err.message);
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, &job->buffer, &job->length);
    cinfo.image_width = (JDIMENSION)width;
    cinfo.image_height = (JDIMENSION)height;
    cinfo.input_components = 3;
    cinfo.in_color_space = JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    // 4:4:4: a map's thin coloured lines and text lose their colour at 4:2:0.
    for (int c = 0; c < cinfo.num_components; c++) {
        cinfo.comp_info[c].h_samp_factor = 1;
        cinfo.comp_info[c].v_samp_factor = 1;
    }
    cinfo.optimize_coding = TRUE;
    cinfo.dct_method = JDCT_ISLOW;
    cinfo.write_JFIF_header = TRUE;
    jpeg_start_compress(&cinfo, TRUE);
    while (cinfo.next_scanline < cinfo.image_height) {
        const uint32_t *src = (const uint32_t *)(data + (size_t)cinfo.next_scanline * stride);
        unsigned char *o = job->row;
        for (int x = 0; x < width; x++) {
            uint32_t p = src[x];
            unsigned int a = p >> 24, r = (p >> 16) & 0xff, g = (p >> 8) & 0xff, b = p & 0xff;
            // Premultiplied colour over white: c + (1 - a) * 255.
            *o++ = (unsigned char)(r + 255 - a);
            *o++ = (unsigned char)(g + 255 - a);
            *o++ = (unsigned char)(b + 255 - a);
        }
        JSAMPROW rows[1] = { job->row };
        jpeg_write_scanlines(&cinfo, rows, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    // jpeg_mem_dest's buffer comes from malloc: it is the caller's to free.
    *out = job->buffer;
    *out_length = (size_t)job->length;
    free(job->row);
    free(job);
    return 0;
}

// MARK: - WebP

static const char *webp_error_text(WebPEncodingError e) {
    switch (e) {
    case VP8_ENC_ERROR_OUT_OF_MEMORY:
    case VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY: return "out of memory";
    case VP8_ENC_ERROR_BAD_DIMENSION: return "the image is larger than WebP allows (16383 pixels per side)";
    case VP8_ENC_ERROR_PARTITION0_OVERFLOW:
    case VP8_ENC_ERROR_PARTITION_OVERFLOW: return "the image is too complex for one lossy WebP partition";
    case VP8_ENC_ERROR_FILE_TOO_BIG: return "the image is too large for a WebP file (4 GB)";
    default: return "encoding failed";
    }
}

int mr_webp_write_argb32(const unsigned char *data, int width, int height, int stride, int quality,
                         unsigned char **out, size_t *out_length, char *error, size_t error_size) {
    if (width <= 0 || height <= 0) return fail(error, error_size, "empty image");
    if (width > WEBP_MAX_DIMENSION || height > WEBP_MAX_DIMENSION)
        return fail(error, error_size, webp_error_text(VP8_ENC_ERROR_BAD_DIMENSION));
    if (quality < 1) quality = 1;
    if (quality > 100) quality = 100;
    WebPConfig config;
    if (!WebPConfigInit(&config)) return fail(error, error_size, "libwebp version mismatch");
    config.method = 4;
    config.thread_level = 0; // one thread: no scheduling in the bytes
    if (quality == 100) {
        config.lossless = 1;
        config.quality = 75; // lossless: effort, not fidelity (libwebp's default)
    } else {
        config.quality = (float)quality;
    }
    if (!WebPValidateConfig(&config)) return fail(error, error_size, "invalid WebP settings");

    int opaque = mr_argb32_is_opaque(data, width, height, stride);
    const int channels = opaque ? 3 : 4;
    unsigned char *rgba = malloc((size_t)width * height * channels);
    if (!rgba) return fail(error, error_size, "out of memory");
    unsigned char *o = rgba;
    for (int y = 0; y < height; y++) {
        o = mr_unpremultiply_row((const uint32_t *)(data + (size_t)y * stride), width, opaque, o);
    }

    WebPPicture pic;
    if (!WebPPictureInit(&pic)) { free(rgba); return fail(error, error_size, "libwebp version mismatch"); }
    pic.width = width;
    pic.height = height;
    pic.use_argb = config.lossless;
    int imported = opaque ? WebPPictureImportRGB(&pic, rgba, width * 3) : WebPPictureImportRGBA(&pic, rgba, width * 4);
    free(rgba);
    if (!imported) {
        WebPPictureFree(&pic);
        return fail(error, error_size, "out of memory");
    }
    WebPMemoryWriter writer;
    WebPMemoryWriterInit(&writer);
    pic.writer = WebPMemoryWrite;
    pic.custom_ptr = &writer;
    int ok = WebPEncode(&config, &pic);
    WebPEncodingError code = pic.error_code;
    WebPPictureFree(&pic);
    if (!ok) {
        WebPMemoryWriterClear(&writer);
        return fail(error, error_size, webp_error_text(code));
    }
    // Copied into a malloc'd buffer so that one free function serves both encoders.
    unsigned char *copy = malloc(writer.size ? writer.size : 1);
    if (!copy) { WebPMemoryWriterClear(&writer); return fail(error, error_size, "out of memory"); }
    memcpy(copy, writer.mem, writer.size);
    *out = copy;
    *out_length = writer.size;
    WebPMemoryWriterClear(&writer);
    return 0;
}
