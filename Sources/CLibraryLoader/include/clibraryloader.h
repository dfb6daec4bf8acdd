// Loading a shared library on first use. xds links none of the C libraries it calls through
// (libplist, zlib, libdeflate, libarchive, libcurl): each C module (CPlist, CZlib, CDeflate,
// CArchive, CCurl) opens its library with dlopen the first time it is needed and forwards calls
// to it. Linked, each library costs every run of `xds` its loading time — mapping, relocating,
// resolving symbols — whether the command needs it or not (Benchmarks/RESULTS.md, start-up).
//
// All five modules use the one table style below (CLIBRARY_DEFINE): a list of the files to try,
// a table of the functions to look up — required, optional, or one of several alternative names
// (libplist 2.2's plist_to_bin_free or 2.3's plist_mem_free) —, a check run once after the
// lookup (a version floor, an ABI choice, global initialisation), and a thread-safe first load.
// Each module then offers PREFIX_available(), PREFIX_load_error(), PREFIX_load_state() and
// PREFIX_description().
#ifndef CLIBRARYLOADER_H
#define CLIBRARYLOADER_H

#include <stddef.h>

/// One function a module looks up: the first of `names` (NULL-terminated) that the library
/// exports fills its slot of the table.
struct clibrary_function {
    const char *const *names;
    /// 1 when the library may lack it (the slot stays NULL and the forwarder falls back).
    int optional;
};

/// What clibrary_load found (PREFIX_load_state()).
enum {
    CLIBRARY_NOT_LOADED = 0,
    /// Loaded, every required function found, the check passed.
    CLIBRARY_LOADED = 1,
    /// No file of the library could be opened because none is installed.
    CLIBRARY_MISSING = 2,
    /// A file was found but cannot be used: it failed to load, lacks a function, or its check
    /// refused it (too old).
    CLIBRARY_UNUSABLE = 3,
};

/// A library opened on first use together with the functions a module forwards to: the module
/// keeps one in a static (CLIBRARY_DEFINE), with `addresses` pointing at its table of function
/// pointers (in the order of `functions`), and calls clibrary_load before using the table.
struct clibrary {
    /// The library's name in messages ("zlib").
    const char *label;
    /// The files to try, in order (see clibrary_open).
    const char *const *names;
    size_t nameCount;
    /// The functions to look up, and where their addresses go. (Which of a function's names was
    /// found shows by comparing its slot with an optional slot of the other name: CPlist.)
    const struct clibrary_function *functions;
    void **addresses;
    size_t functionCount;
    /// A `const char *(void)` function giving the library's version at run time
    /// ("zlibVersion"), or NULL when it has none (then messages name the file).
    const char *versionFunction;
    /// Run once after the lookup, with the load lock held, before a missing function is
    /// reported: may set `version` (from what the library exports; a slot of a function not
    /// found is NULL). NULL: nothing to identify.
    void (*identify)(struct clibrary *library);
    /// Run once after every required function was found, with the load lock held: returns 0
    /// with `error` set (see clibrary_refuse) when the library cannot be used (too old, cannot be
    /// initialised). NULL: nothing to check.
    int (*check)(struct clibrary *library);
    /// CLIBRARY_NOT_LOADED until the first load, then what it found (set by clibrary_load).
    int state;
    /// The dlopen handle (NULL unless loaded).
    void *handle;
    /// The library's version ("3.6.2"), or "" when unknown.
    char version[64];
    /// The file actually loaded (its real path, e.g. /usr/lib/…/libz.so.1.2.13), or "".
    char path[256];
    /// Why the library cannot be used, one line naming it, or "" when it was loaded.
    char error[384];
    /// "libplist 2.7.0 (/usr/lib/…/libplist-2.0.so.4.11.0)", or the error (for `xds --version`).
    char description[400];
};

/// Opens the first of `names` (sonames, then development links and macOS names) that dlopen
/// finds, RTLD_NOW | RTLD_LOCAL. Returns NULL when none loads, with `error` saying why: the
/// first failure that is not a missing file (a wrong architecture, a missing dependency), else
/// "LABEL is not installed (tried NAME, NAME…)"; `*missing` is 1 in that last case.
void *clibrary_open(const char *label, const char *const names[], size_t count, char *error,
                    size_t errorSize, int *missing);

/// Loads `library` and looks up all its functions the first time it is called (any thread);
/// 1 when the library, every required function and its check were fine, else 0 with the reason
/// in its error (the table then stays empty).
int clibrary_load(struct clibrary *library);

/// For a module's check: refuses the library with "LABEL VERSION (PATH) " followed by `problem`
/// as its error ("is too old: 7.85 or newer is needed"); returns 0.
int clibrary_refuse(struct clibrary *library, const char *problem);

/// "LABEL VERSION (PATH)", "LABEL (PATH)" without a version: how messages name what was found.
void clibrary_found(const struct clibrary *library, char *text, size_t size);

// A module's function list is an X-macro FUNCTIONS(X) whose entries are
//   X(name, type, optional, "symbol", "alternative symbol"…)
// `name` is the table's field; `type` a function pointer type. For a function whose header
// prototype holds in every version the module supports, CLIBRARY_SAME(X, name) declares it
// with the header's own type (the compiler checks the forwarder against it), required.
#define CLIBRARY_SAME(X, name) X(name, __typeof__(name) *, 0, #name)
/// The same for a function the module can do without (its slot stays NULL when missing).
#define CLIBRARY_SAME_OPTIONAL(X, name) X(name, __typeof__(name) *, 1, #name)
#define CLIBRARY_FIELD(name, type, optional, ...) __typeof__(type) name;
#define CLIBRARY_FUNCTION(name, type, optional, ...) {(const char *const[]){__VA_ARGS__, NULL}, optional},

/// Defines the `struct clibrary` of a module whose table is `table` (declared as
/// `static struct { FUNCTIONS(CLIBRARY_FIELD) } table;`), to be loaded from the files listed
/// after it, with `version` the name of its version function (or NULL), and `identify` and
/// `check` its hooks (or NULL), and the module's public functions PREFIX_available() (1 once loaded, loading on
/// the first call), PREFIX_load_error() (why not, one line, or ""), PREFIX_load_state() (a
/// CLIBRARY_ state) and PREFIX_description() (what `xds --version` prints about it).
#define CLIBRARY_DEFINE(prefix, label, table, FUNCTIONS, version, identify, check, ...)              \
    static const struct clibrary_function prefix##_functions[] = {FUNCTIONS(CLIBRARY_FUNCTION)};    \
    _Static_assert(sizeof table == sizeof prefix##_functions / sizeof prefix##_functions[0] *       \
                                       sizeof(void *),                                              \
                   "one pointer a function");                                                       \
    static const char *const prefix##_files[] = {__VA_ARGS__};                                      \
    static struct clibrary prefix##_library = {                                                     \
        label, prefix##_files, sizeof prefix##_files / sizeof(char *), prefix##_functions,         \
        (void **)&table, sizeof prefix##_functions / sizeof prefix##_functions[0],                  \
        version, identify, check, 0, NULL, "", "", "", ""};                                         \
    int prefix##_available(void) { return clibrary_load(&prefix##_library); }                       \
    const char *prefix##_load_error(void) {                                                         \
        clibrary_load(&prefix##_library);                                                           \
        return prefix##_library.error;                                                              \
    }                                                                                               \
    int prefix##_load_state(void) {                                                                 \
        clibrary_load(&prefix##_library);                                                           \
        return prefix##_library.state;                                                              \
    }                                                                                               \
    const char *prefix##_description(void) {                                                        \
        clibrary_load(&prefix##_library);                                                           \
        return prefix##_library.description;                                                        \
    }

#endif
