// glibc's allocator settings (mallopt), which Swift's Glibc module leaves out (<malloc.h>).
#include <malloc.h>
