#ifndef MAPRENDER_MR_BUILD_INFO_H
#define MAPRENDER_MR_BUILD_INFO_H

/// The git commit this binary was built from ("0123456789ab", "+dirty" after it when the tree had
/// changes), as scripts/stamp-commit wrote it into generated/mr_build_commit.h before the build;
/// "" when no stamp was written (a build without scripts/setup, a clone without git).
const char *mr_build_commit(void);

#endif
