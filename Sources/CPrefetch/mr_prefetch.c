// The header's inline functions, and the large-buffer allocator below.
#include "mr_prefetch.h"
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#define MR_HUGE ((size_t)2 << 20)

// Freed large blocks kept for the next allocations (`mr_keep_large_blocks`). Written by hand:
// glibc maps a block above its mmap threshold (32 MiB under `animate`'s settings) on its own and
// unmaps it when freed, and a worker thread's arena holds at most 64 MiB, so a clustering's
// buffers came back as fresh pages every frame: each huge page zeroed by the kernel. A few dozen
// blocks at most, so a linear search under one lock.
#define MR_KEPT_SLOTS 32
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;
static struct { void *p; size_t size; } kept[MR_KEPT_SLOTS];
static int kept_count;
static size_t kept_bytes, kept_limit;

void mr_keep_large_blocks(size_t limit) {
    void *drop[MR_KEPT_SLOTS];
    int dropped = 0;
    pthread_mutex_lock(&kept_lock);
    kept_limit = limit;
    // Over the new limit: every kept block goes back.
    if (kept_bytes > limit) {
        for (int i = 0; i < kept_count; i++) drop[dropped++] = kept[i].p;
        kept_count = 0;
        kept_bytes = 0;
    }
    pthread_mutex_unlock(&kept_lock);
    for (int i = 0; i < dropped; i++) free(drop[i]);
}

// A kept block of at least `size` bytes and at most a quarter more (the smallest), or NULL.
static void *take_kept(size_t size) {
    void *p = NULL;
    pthread_mutex_lock(&kept_lock);
    int best = -1;
    for (int i = 0; i < kept_count; i++) {
        if (kept[i].size >= size && kept[i].size - size <= size / 4 && (best < 0 || kept[i].size < kept[best].size)) best = i;
    }
    if (best >= 0) {
        p = kept[best].p;
        kept_bytes -= kept[best].size;
        kept[best] = kept[--kept_count];
    }
    pthread_mutex_unlock(&kept_lock);
    return p;
}

void *mr_alloc_large(size_t bytes) {
    if (bytes < MR_HUGE) return malloc(bytes ? bytes : 1);
    size_t size = (bytes + MR_HUGE - 1) & ~(MR_HUGE - 1);
    void *p = take_kept(size);
    if (p) return p;
    if (posix_memalign(&p, MR_HUGE, size) != 0) return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, size, MADV_HUGEPAGE);
#endif
    return p;
}

void mr_free_large(void *p) {
    if (!p) return;
    // Only blocks of `mr_alloc_large`'s own large kind: a malloc'd small block is never 2 MiB long.
    size_t usable = malloc_usable_size(p);
    if (usable >= MR_HUGE && ((uintptr_t)p & (MR_HUGE - 1)) == 0) {
        size_t size = usable & ~(MR_HUGE - 1);
        pthread_mutex_lock(&kept_lock);
        int keep = kept_count < MR_KEPT_SLOTS && kept_bytes + size <= kept_limit;
        if (keep) {
            kept[kept_count].p = p;
            kept[kept_count].size = size;
            kept_count++;
            kept_bytes += size;
        }
        pthread_mutex_unlock(&kept_lock);
        if (keep) return;
    }
    free(p);
}
