#ifndef MAPRENDER_MR_PREFETCH_H
#define MAPRENDER_MR_PREFETCH_H

/// Asks the CPU to bring the cache line holding `address` closer, for reading and writing, without
/// waiting for it (x86 PREFETCHW / PREFETCHT0, ARM PRFM). Swift has no spelling of this; the
/// clustering pass uses it to fetch the grid entries of the items it will visit a few steps ahead,
/// which it visits in input order and so finds scattered across memory.
static inline void mr_prefetch(const void *address) {
    __builtin_prefetch(address, 1, 3);
}

/// Tells the CPU this thread is spinning on a value another thread will write (x86 PAUSE, ARM
/// YIELD): it waits a little and does not flood the memory system with loads meanwhile.
static inline void mr_spin_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

#include <stddef.h>

/// Memory for a large buffer read at random (a hash table, a grid): from 2 MiB on, aligned to
/// 2 MiB and marked for transparent huge pages (madvise MADV_HUGEPAGE), so that random reads
/// across it do not each miss the TLB. NULL when out of memory. Free with `mr_free_large`.
void *mr_alloc_large(size_t bytes);
void mr_free_large(void *p);

#endif
