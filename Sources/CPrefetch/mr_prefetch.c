// The header's inline function is all there is; SwiftPM needs a source file for a C target.
#include "mr_prefetch.h"
