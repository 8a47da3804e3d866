// The build's git commit, for `maprender --version`. SwiftPM has no build-time defines from the
// environment and a plugin would run git on every build, so scripts/stamp-commit (run by
// scripts/setup and scripts/test) writes generated/mr_build_commit.h, ignored by git; without it
// the commit is unknown. SwiftPM tracks this file's header dependencies, so a new stamp rebuilds it.
#include "mr_build_info.h"

#if __has_include("generated/mr_build_commit.h")
#include "generated/mr_build_commit.h"
#endif

#ifndef MR_BUILD_COMMIT
#define MR_BUILD_COMMIT ""
#endif

const char *mr_build_commit(void) { return MR_BUILD_COMMIT; }
