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
#include <stdint.h>

/// `yes` when `condition` is not 0, else `no`, without a branch (x86 CMOV, ARM CSEL). For a
/// choice that is a coin toss, as which of two sorted runs gives a merge its next item: a branch
/// on it is mispredicted about every other time. Compilers turn a plain `c ? a : b` (or the same
/// in arithmetic) whose condition comes from a load into such a branch; the instruction written
/// out here stays as it is.
static inline intptr_t mr_select(int condition, intptr_t yes, intptr_t no) {
#if defined(__x86_64__)
    __asm__("testl %1, %1\n\tcmovneq %2, %0" : "+r"(no) : "r"(condition), "r"(yes) : "cc");
    return no;
#elif defined(__aarch64__)
    __asm__("cmp %w1, #0\n\tcsel %0, %2, %0, ne" : "+r"(no) : "r"(condition), "r"(yes) : "cc");
    return no;
#else
    return condition ? yes : no;
#endif
}

/// Memory for a large buffer read at random (a hash table, a grid): from 2 MiB on, aligned to
/// 2 MiB and marked for transparent huge pages (madvise MADV_HUGEPAGE), so that random reads
/// across it do not each miss the TLB. NULL when out of memory. Free with `mr_free_large`.
void *mr_alloc_large(size_t bytes);
void mr_free_large(void *p);

/// From now on, `mr_free_large` keeps freed blocks of 2 MiB and more (up to `limit` bytes in all)
/// and `mr_alloc_large` hands them out again, their pages already mapped, instead of memory the
/// kernel must fault in and zero. For a process that makes the same large buffers again and
/// again (`animate`: one clustering per frame). A lower limit than the blocks kept
/// gives them all back (0: keep none).
void mr_keep_large_blocks(size_t limit);

#endif
