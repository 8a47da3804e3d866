#ifndef MAPRENDER_MR_HTTP_H
#define MAPRENDER_MR_HTTP_H
// One HTTP GET through libcurl, with its answer bounded as it streams in: the body (after
// Content-Encoding is undone, so a gzip bomb stops too) and the headers stop at their limits and
// the transfer is aborted there, so no more than the limits are ever held. Three clocks from the
// start: the answer must begin within `first_byte_ms`, each later byte follow the last within
// `stall_ms`, and the whole be in within `total_ms`. In C because curl_easy_setopt is variadic.
#include <stddef.h>

/// Connections (and DNS answers) shared by every request of one client. Thread-safe.
typedef struct mr_http_client mr_http_client;

/// NULL when libcurl cannot be set up (`mr_http_problem` says why).
mr_http_client *mr_http_client_new(void);

/// Loads libcurl (once, on first use; it is opened with dlopen, not linked) and sets it up;
/// NULL when it is ready, else why it is not.
const char *mr_http_problem(void);
void mr_http_client_free(mr_http_client *client);

enum mr_http_outcome {
    MR_HTTP_ANSWER = 0,      // an HTTP answer: status, headers, body
    MR_HTTP_TIMED_OUT = 1,   // one of the three clocks ran out (`error` says which)
    MR_HTTP_TOO_LARGE = 2,   // Content-Length or the body (as it came) past `max_body`
    MR_HTTP_FAILED = 3,      // anything else (refused connection, no HTTP, TLS): `error` says
};

struct mr_http_request {
    const char *url;
    /// Extra request headers, "Name: value" each.
    const char *const *headers;
    int header_count;
    const char *user_agent;
    long first_byte_ms, stall_ms, total_ms;
    size_t max_body;
    /// Redirects followed (http and https only); 0: a 3xx answer is returned as it is, with its
    /// Location header, for a caller that checks where it leads.
    long max_redirects;
};

struct mr_http_response {
    int outcome;
    long status;
    /// The body (malloc'd, free with mr_http_free; NULL when empty).
    unsigned char *body;
    size_t body_length;
    /// The final answer's header lines, "Name: value\r\n" each (malloc'd; NULL when none).
    char *headers;
    size_t headers_length;
    /// Content-Length when the answer was refused for it (else -1).
    long long content_length;
    char error[256];
};

/// Makes the request; always fills `response` (free its buffers with mr_http_free).
void mr_http_get(mr_http_client *client, const struct mr_http_request *request, struct mr_http_response *response);

void mr_http_free(void *p);

#endif
