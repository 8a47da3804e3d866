// glibc's allocator settings (mallopt), which Swift's Glibc module leaves out (<malloc.h>).
#if defined(__linux__)
#include <malloc.h>
#endif
