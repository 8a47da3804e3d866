// The header's inline functions, and the large-buffer allocator below.
#include "mr_prefetch.h"
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#ifdef __linux__
#include <malloc.h>
#endif

#define MR_HUGE ((size_t)2 << 20)

// Freed large blocks kept for the next allocations (`mr_keep_large_blocks`). Written by hand:
// glibc gives a large block back to the kernel when it is freed (a block it mapped on its own, or
// a worker thread's heap, at most 64 MiB, deleted once empty), so a clustering's buffers came
// back as fresh pages every frame, each huge page zeroed by the kernel. A few dozen blocks at
// most, so a linear search under one lock; the oldest go when room is needed. Linux only (it
// needs `malloc_usable_size`); elsewhere nothing is kept.
#define MR_KEPT_SLOTS 32
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;
// Oldest first.
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
        memmove(&kept[best], &kept[best + 1], (size_t)(kept_count - best - 1) * sizeof kept[0]);
        kept_count--;
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
#ifdef __linux__
    // Only blocks 2 MiB-aligned with 2 MiB or more usable: `mr_alloc_large`'s own large ones (a
    // small one that happened to qualify would be kept as the 2 MiB it really has).
    size_t usable = malloc_usable_size(p);
    if (usable >= MR_HUGE && ((uintptr_t)p & (MR_HUGE - 1)) == 0) {
        size_t size = usable & ~(MR_HUGE - 1);
        void *drop[MR_KEPT_SLOTS];
        int dropped = 0, keep = 0;
        pthread_mutex_lock(&kept_lock);
        if (size <= kept_limit) {
            // Room by letting the oldest go.
            while (kept_count > 0 && (kept_count == MR_KEPT_SLOTS || kept_bytes + size > kept_limit)) {
                drop[dropped++] = kept[0].p;
                kept_bytes -= kept[0].size;
                memmove(&kept[0], &kept[1], (size_t)(kept_count - 1) * sizeof kept[0]);
                kept_count--;
            }
            kept[kept_count].p = p;
            kept[kept_count].size = size;
            kept_count++;
            kept_bytes += size;
            keep = 1;
        }
        pthread_mutex_unlock(&kept_lock);
        for (int i = 0; i < dropped; i++) free(drop[i]);
        if (keep) return;
    }
#endif
    free(p);
}
