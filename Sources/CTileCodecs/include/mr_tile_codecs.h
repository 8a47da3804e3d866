#ifndef MR_TILE_CODECS_H
#define MR_TILE_CODECS_H
#include <stddef.h>

/// Decodes a PNG, JPEG or WebP tile (sniffed from its first bytes) into straight RGBA, 8 bits per
/// channel, rows packed. On success returns 0 and sets *out (malloc'd: free with mr_tile_free),
/// *width and *height. On failure returns non-zero and writes a short reason into `error`.
/// An image wider or taller than `max_side` pixels (by its header: PNG's IHDR, JPEG's frame
/// header, WebP's) is refused before any decoder allocates for its pixels; a JPEG that ends
/// early fails ("JPEG data is truncated") rather than coming back half grey.
int mr_tile_decode(const unsigned char *data, size_t length, int max_side, unsigned char **out, int *width, int *height,
                   char *error, size_t error_size);

void mr_tile_free(void *p);

/// Inflates gzip (or zlib) data to at most `limit` bytes. Returns 0 and a malloc'd buffer in *out
/// (free with mr_tile_free); 1 when the data is corrupt or truncated; 2 when it inflates to more
/// than `limit` bytes (no more than limit + 1 bytes are ever allocated).
int mr_gunzip(const unsigned char *data, size_t length, size_t limit, unsigned char **out, size_t *out_length);

#endif
