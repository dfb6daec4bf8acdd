// The commit xds was built from. `make build` (scripts/build-info.sh) writes it into
// Sources/CBuildInfo/commit.h, which git ignores; a plain `swift build` without that file
// says "unknown". A C target because SwiftPM has no way to hand a string to Swift at build time.
#ifndef XDS_BUILD_INFO_H
#define XDS_BUILD_INFO_H

/// The git commit (abbreviated, "-dirty" when the tree had changes), or "unknown".
const char *xds_build_commit(void);

#endif
