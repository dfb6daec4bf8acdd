#include "xds_build_info.h"

#if __has_include("commit.h")
#include "commit.h"
#endif

#ifndef XDS_COMMIT
#define XDS_COMMIT "unknown"
#endif

const char *xds_build_commit(void) { return XDS_COMMIT; }
