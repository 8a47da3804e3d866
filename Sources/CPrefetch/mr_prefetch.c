// The header's inline functions, and the large-buffer allocator below.
#include "mr_prefetch.h"
#include <stdlib.h>
#include <sys/mman.h>

#define MR_HUGE (2u << 20)

void *mr_alloc_large(size_t bytes) {
    if (bytes < MR_HUGE) return malloc(bytes ? bytes : 1);
    size_t size = (bytes + MR_HUGE - 1) & ~(size_t)(MR_HUGE - 1);
    void *p = NULL;
    if (posix_memalign(&p, MR_HUGE, size) != 0) return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, size, MADV_HUGEPAGE);
#endif
    return p;
}

void mr_free_large(void *p) { free(p); }
