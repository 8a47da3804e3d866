// See mr_http.h. One request is one easy handle driven by its own multi handle on the calling
// thread (curl_multi_poll in slices of at most 50 ms), so the three clocks are ours and exact; the
// client's share handle keeps connections and DNS answers between requests.
#include "mr_http.h"
#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

struct mr_http_client {
    CURLSH *share;
    pthread_mutex_t locks[CURL_LOCK_DATA_LAST];
};

// libcurl is opened on the first request (dlopen), not linked: its ~26 libraries (GnuTLS,
// Kerberos, LDAP, libssh2, nghttp2...) cost every process ~7 ms of loading and relocation
// (measured: an empty program linked with maprender's libraries starts in 4.5 ms, 11.4 ms with
// libcurl's), and only maps with HTTP tiles use it. The functions below are libcurl's own,
// looked up by name; the headers still come from libcurl4-openssl-dev.
static struct {
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    const char *(*easy_strerror)(CURLcode);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_cleanup)(CURLM *);
    CURLMcode (*multi_add_handle)(CURLM *, CURL *);
    CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
    CURLMcode (*multi_perform)(CURLM *, int *);
    CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd *, unsigned int, int, int *);
    CURLMsg *(*multi_info_read)(CURLM *, int *);
    const char *(*multi_strerror)(CURLMcode);
    CURLSH *(*share_init)(void);
    CURLSHcode (*share_cleanup)(CURLSH *);
    CURLSHcode (*share_setopt)(CURLSH *, CURLSHoption, ...);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
} lib;

#undef curl_global_init
#define curl_global_init lib.global_init
#undef curl_easy_init
#define curl_easy_init lib.easy_init
#undef curl_easy_cleanup
#define curl_easy_cleanup lib.easy_cleanup
#undef curl_easy_setopt
#define curl_easy_setopt lib.easy_setopt
#undef curl_easy_getinfo
#define curl_easy_getinfo lib.easy_getinfo
#undef curl_easy_strerror
#define curl_easy_strerror lib.easy_strerror
#undef curl_multi_init
#define curl_multi_init lib.multi_init
#undef curl_multi_cleanup
#define curl_multi_cleanup lib.multi_cleanup
#undef curl_multi_add_handle
#define curl_multi_add_handle lib.multi_add_handle
#undef curl_multi_remove_handle
#define curl_multi_remove_handle lib.multi_remove_handle
#undef curl_multi_perform
#define curl_multi_perform lib.multi_perform
#undef curl_multi_poll
#define curl_multi_poll lib.multi_poll
#undef curl_multi_info_read
#define curl_multi_info_read lib.multi_info_read
#undef curl_multi_strerror
#define curl_multi_strerror lib.multi_strerror
#undef curl_share_init
#define curl_share_init lib.share_init
#undef curl_share_cleanup
#define curl_share_cleanup lib.share_cleanup
#undef curl_share_setopt
#define curl_share_setopt lib.share_setopt
#undef curl_slist_append
#define curl_slist_append lib.slist_append
#undef curl_slist_free_all
#define curl_slist_free_all lib.slist_free_all

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static int global_ok = 0;
static char global_problem[256] = "";

static int load_libcurl(void) {
    void *h = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(global_problem, sizeof global_problem, "libcurl.so.4 cannot be loaded (Debian package libcurl4): %s", dlerror());
        return 0;
    }
#define LOAD(field, name) \
    if (!(*(void **)&lib.field = dlsym(h, name))) { \
        snprintf(global_problem, sizeof global_problem, "libcurl.so.4 has no %s", name); \
        return 0; \
    }
    LOAD(global_init, "curl_global_init") LOAD(easy_init, "curl_easy_init") LOAD(easy_cleanup, "curl_easy_cleanup")
    LOAD(easy_setopt, "curl_easy_setopt") LOAD(easy_getinfo, "curl_easy_getinfo") LOAD(easy_strerror, "curl_easy_strerror")
    LOAD(multi_init, "curl_multi_init") LOAD(multi_cleanup, "curl_multi_cleanup")
    LOAD(multi_add_handle, "curl_multi_add_handle") LOAD(multi_remove_handle, "curl_multi_remove_handle")
    LOAD(multi_perform, "curl_multi_perform") LOAD(multi_poll, "curl_multi_poll") LOAD(multi_info_read, "curl_multi_info_read")
    LOAD(multi_strerror, "curl_multi_strerror") LOAD(share_init, "curl_share_init") LOAD(share_cleanup, "curl_share_cleanup")
    LOAD(share_setopt, "curl_share_setopt") LOAD(slist_append, "curl_slist_append") LOAD(slist_free_all, "curl_slist_free_all")
#undef LOAD
    return 1;
}

static void global_init(void) {
    if (!load_libcurl()) return;
    global_ok = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
    if (!global_ok) snprintf(global_problem, sizeof global_problem, "curl_global_init failed");
}

const char *mr_http_problem(void) {
    pthread_once(&global_once, global_init);
    return global_ok ? NULL : global_problem;
}

static void share_lock(CURL *h, curl_lock_data data, curl_lock_access access, void *p) {
    (void)h; (void)access;
    pthread_mutex_lock(&((mr_http_client *)p)->locks[data]);
}

static void share_unlock(CURL *h, curl_lock_data data, void *p) {
    (void)h;
    pthread_mutex_unlock(&((mr_http_client *)p)->locks[data]);
}

mr_http_client *mr_http_client_new(void) {
    pthread_once(&global_once, global_init);
    if (!global_ok) return NULL;
    mr_http_client *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) pthread_mutex_init(&c->locks[i], NULL);
    c->share = curl_share_init();
    if (!c->share) { free(c); return NULL; }
    curl_share_setopt(c->share, CURLSHOPT_LOCKFUNC, share_lock);
    curl_share_setopt(c->share, CURLSHOPT_UNLOCKFUNC, share_unlock);
    curl_share_setopt(c->share, CURLSHOPT_USERDATA, c);
    curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
    curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
    curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
    return c;
}

void mr_http_client_free(mr_http_client *c) {
    if (!c) return;
    curl_share_cleanup(c->share);
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) pthread_mutex_destroy(&c->locks[i]);
    free(c);
}

void mr_http_free(void *p) { free(p); }

static uint64_t now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

/// A growing buffer that refuses to grow past `limit`.
struct buffer {
    char *data;
    size_t length, capacity, limit;
};

static int append(struct buffer *b, const char *p, size_t n) {
    if (n > b->limit - b->length) return 0;
    if (b->length + n > b->capacity) {
        size_t cap = b->capacity ? b->capacity : 16384;
        while (cap < b->length + n) cap *= 2;
        if (cap > b->limit) cap = b->limit;
        char *bigger = realloc(b->data, cap);
        if (!bigger) return 0;
        b->data = bigger; b->capacity = cap;
    }
    memcpy(b->data + b->length, p, n);
    b->length += n;
    return 1;
}

struct transfer {
    struct buffer body, headers;
    int too_large, headers_too_large;
    long long content_length;
    uint64_t last_byte;   // 0 until the answer begins
};

static size_t on_body(char *p, size_t size, size_t n, void *userdata) {
    struct transfer *t = userdata;
    t->last_byte = now_ms();
    if (!append(&t->body, p, size * n)) { t->too_large = 1; return 0; } // aborts the transfer
    return size * n;
}

static size_t on_header(char *p, size_t size, size_t n, void *userdata) {
    struct transfer *t = userdata;
    size_t len = size * n;
    t->last_byte = now_ms();
    // A new status line (after a redirect or a 100 Continue): the headers before it are not this answer's.
    if (len >= 5 && memcmp(p, "HTTP/", 5) == 0) { t->headers.length = 0; t->content_length = -1; return len; }
    if (len >= 15 && strncasecmp(p, "content-length:", 15) == 0) {
        char tmp[64];
        size_t m = len - 15 < sizeof tmp - 1 ? len - 15 : sizeof tmp - 1;
        memcpy(tmp, p + 15, m); tmp[m] = 0;
        char *end = NULL;
        long long cl = strtoll(tmp, &end, 10);
        if (end != tmp && cl >= 0) {
            t->content_length = cl;
            // The size as sent (compressed or not) is past the limit: refused before any body byte.
            if ((unsigned long long)cl > t->body.limit) { t->too_large = 1; return 0; }
        }
    }
    if (!append(&t->headers, p, len)) { t->headers_too_large = 1; return 0; }
    return len;
}

static void set_error(struct mr_http_response *r, int outcome, const char *fmt, const char *what, double seconds) {
    r->outcome = outcome;
    if (what) snprintf(r->error, sizeof r->error, fmt, what);
    else snprintf(r->error, sizeof r->error, fmt, seconds);
}

void mr_http_get(mr_http_client *client, const struct mr_http_request *q, struct mr_http_response *r) {
    memset(r, 0, sizeof *r);
    r->content_length = -1;
    struct transfer t;
    memset(&t, 0, sizeof t);
    t.body.limit = q->max_body;
    t.headers.limit = 256 * 1024;   // the answer's headers: 256 KiB at most
    t.content_length = -1;
    CURL *e = curl_easy_init();
    CURLM *m = curl_multi_init();
    struct curl_slist *list = NULL;
    if (!e || !m) { set_error(r, MR_HTTP_FAILED, "%s", "libcurl could not start a request", 0); goto done; }
    for (int i = 0; i < q->header_count; i++) list = curl_slist_append(list, q->headers[i]);
    curl_easy_setopt(e, CURLOPT_URL, q->url);
    curl_easy_setopt(e, CURLOPT_SHARE, client->share);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(e, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, q->max_redirects > 0 ? 1L : 0L);
    curl_easy_setopt(e, CURLOPT_MAXREDIRS, q->max_redirects);
    // gzip, deflate, br as libcurl was built with; the body is counted after decoding.
    curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
    if (q->user_agent) curl_easy_setopt(e, CURLOPT_USERAGENT, q->user_agent);
    if (list) curl_easy_setopt(e, CURLOPT_HTTPHEADER, list);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, &t);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, &t);
    // The connection itself within the first-byte clock; libcurl's own total a little after ours.
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, q->first_byte_ms);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, q->total_ms + 1000);
    curl_multi_add_handle(m, e);

    uint64_t began = now_ms();
    int running = 1;
    while (running) {
        CURLMcode mc = curl_multi_perform(m, &running);
        if (mc != CURLM_OK) { set_error(r, MR_HTTP_FAILED, "%s", curl_multi_strerror(mc), 0); goto done; }
        if (!running) break;
        uint64_t now = now_ms();
        if (t.too_large) break;
        if (now >= began + (uint64_t)q->total_ms) {
            set_error(r, MR_HTTP_TIMED_OUT, "not whole within %g s", NULL, q->total_ms / 1000.0); goto done;
        }
        if (!t.last_byte && now >= began + (uint64_t)q->first_byte_ms) {
            set_error(r, MR_HTTP_TIMED_OUT, "no answer within %g s", NULL, q->first_byte_ms / 1000.0); goto done;
        }
        if (t.last_byte && now >= t.last_byte + (uint64_t)q->stall_ms) {
            set_error(r, MR_HTTP_TIMED_OUT, "no byte for %g s", NULL, q->stall_ms / 1000.0); goto done;
        }
        uint64_t next = began + (uint64_t)q->total_ms;
        uint64_t progress = t.last_byte ? t.last_byte + (uint64_t)q->stall_ms : began + (uint64_t)q->first_byte_ms;
        if (progress < next) next = progress;
        long wait = next > now ? (long)(next - now) : 0;
        if (wait > 50) wait = 50;
        curl_multi_poll(m, NULL, 0, (int)wait, NULL);
    }
    if (t.too_large) {
        r->outcome = MR_HTTP_TOO_LARGE;
        r->content_length = t.content_length;
        goto done;
    }
    int left = 0;
    CURLMsg *msg;
    CURLcode code = CURLE_OK;
    while ((msg = curl_multi_info_read(m, &left))) {
        if (msg->msg == CURLMSG_DONE) code = msg->data.result;
    }
    if (code == CURLE_OPERATION_TIMEDOUT) {
        set_error(r, MR_HTTP_TIMED_OUT, "%s", "timed out", 0); goto done;
    }
    if (code != CURLE_OK) {
        if (t.headers_too_large) set_error(r, MR_HTTP_FAILED, "%s", "the answer's headers are larger than 256 KiB", 0);
        else set_error(r, MR_HTTP_FAILED, "%s", curl_easy_strerror(code), 0);
        goto done;
    }
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &r->status);
    r->outcome = MR_HTTP_ANSWER;
    r->body = (unsigned char *)t.body.data; r->body_length = t.body.length; t.body.data = NULL;
    r->headers = t.headers.data; r->headers_length = t.headers.length; t.headers.data = NULL;
done:
    free(t.body.data);
    free(t.headers.data);
    if (m && e) curl_multi_remove_handle(m, e);
    if (e) curl_easy_cleanup(e);
    if (m) curl_multi_cleanup(m);
    curl_slist_free_all(list);
}
