// See mr_rsvg.h. librsvg is opened with dlopen on the first SVG icon rather than linked: it pulls
// in gio, gdk-pixbuf, libxml2 and more, ~4 ms of loading and relocation for every process
// (measured: an empty program linked with maprender's other libraries starts in 11.4 ms, 15.9 ms
// with librsvg's), and only maps with SVG icons use it. The few functions and types used are
// declared here as librsvg 2.52+ and GLib define them (stable ABI), so no -dev headers are needed
// to build; Debian's librsvg2-2 provides the library at run time.
#include "mr_rsvg.h"
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef int gboolean;
typedef struct { uint32_t domain; int code; char *message; } GError;
typedef struct { double x, y, width, height; } RsvgRectangle;
typedef struct { double length; int unit; } RsvgLength;

static struct {
    void *(*new_from_data)(const unsigned char *, size_t, GError **);
    void (*set_dpi)(void *, double);
    gboolean (*intrinsic_size_in_pixels)(void *, double *, double *);
    void (*intrinsic_dimensions)(void *, gboolean *, RsvgLength *, gboolean *, RsvgLength *, gboolean *, RsvgRectangle *);
    gboolean (*render_document)(void *, void *, const RsvgRectangle *, GError **);
    void (*object_unref)(void *);
    void (*error_free)(GError *);
} lib;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int ready = 0;
static char problem[256] = "";

static void load(void) {
    void *h = dlopen("librsvg-2.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(problem, sizeof problem, "librsvg-2.so.2 cannot be loaded (Debian package librsvg2-2): %s", dlerror());
        return;
    }
#define LOAD(field, name) \
    if (!(*(void **)&lib.field = dlsym(h, name))) { \
        snprintf(problem, sizeof problem, "librsvg-2.so.2 has no %s (librsvg 2.52 or later is needed)", name); \
        return; \
    }
    LOAD(new_from_data, "rsvg_handle_new_from_data")
    LOAD(set_dpi, "rsvg_handle_set_dpi")
    LOAD(intrinsic_size_in_pixels, "rsvg_handle_get_intrinsic_size_in_pixels")
    LOAD(intrinsic_dimensions, "rsvg_handle_get_intrinsic_dimensions")
    LOAD(render_document, "rsvg_handle_render_document")
    LOAD(object_unref, "g_object_unref")
    LOAD(error_free, "g_error_free")
#undef LOAD
    ready = 1;
}

const char *mr_rsvg_problem(void) {
    pthread_once(&once, load);
    return ready ? NULL : problem;
}

mr_svg *mr_svg_open(const unsigned char *bytes, size_t length, char error[256]) {
    const char *p = mr_rsvg_problem();
    if (p) { snprintf(error, 256, "%s", p); return NULL; }
    GError *e = NULL;
    void *h = lib.new_from_data(bytes, length, &e);
    if (!h) {
        snprintf(error, 256, "%s", e && e->message ? e->message : "unknown error");
        if (e) lib.error_free(e);
        return NULL;
    }
    lib.set_dpi(h, 96);
    return (mr_svg *)h;
}

void mr_svg_close(mr_svg *svg) {
    if (svg) lib.object_unref(svg);
}

static int usable(double w, double h) { return w > 0 && h > 0 && isfinite(w) && isfinite(h); }

int mr_svg_intrinsic_size(mr_svg *svg, double *width, double *height) {
    double w = 0, h = 0;
    if (lib.intrinsic_size_in_pixels(svg, &w, &h) && usable(w, h)) { *width = w; *height = h; return 1; }
    gboolean hasW = 0, hasH = 0, hasBox = 0;
    RsvgLength lw = {0, 0}, lh = {0, 0};
    RsvgRectangle box = {0, 0, 0, 0};
    lib.intrinsic_dimensions(svg, &hasW, &lw, &hasH, &lh, &hasBox, &box);
    if (hasBox && usable(box.width, box.height)) { *width = box.width; *height = box.height; return 1; }
    return 0;
}

int mr_svg_render(mr_svg *svg, void *cr, double x, double y, double width, double height) {
    RsvgRectangle viewport = { x, y, width, height };
    GError *e = NULL;
    gboolean ok = lib.render_document(svg, cr, &viewport, &e);
    if (e) lib.error_free(e);
    return ok != 0;
}
