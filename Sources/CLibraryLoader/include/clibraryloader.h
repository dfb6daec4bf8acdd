// Loading a shared library on first use. xds links none of the C libraries it calls through
// (libplist, zlib, libdeflate, libarchive, libcurl): each C module (CPlist, CZlib, CDeflate,
// CArchive, CCurl) opens its library with dlopen the first time it is needed and forwards calls
// to it. Linked, each library costs every run of `xds` its loading time — mapping, relocating,
// resolving symbols — whether the command needs it or not (Benchmarks/RESULTS.md, start-up).
#ifndef CLIBRARYLOADER_H
#define CLIBRARYLOADER_H

#include <stddef.h>

/// Opens the first of `names` (sonames, then development links and macOS names) that dlopen
/// finds, RTLD_NOW | RTLD_LOCAL. Returns NULL when none loads, with the first name's dlerror
/// text (the most telling one) written into `error`.
void *clibrary_open(const char *const names[], size_t count, char *error, size_t errorSize);

/// A library opened on first use together with the functions a module forwards to: the module
/// keeps one in a static, with `addresses` pointing at its table of function pointers (in the
/// order of `symbols`), and calls clibrary_load before using the table.
struct clibrary {
    /// The library's name in messages ("zlib").
    const char *label;
    /// The files to try, in order (see clibrary_open).
    const char *const *names;
    size_t nameCount;
    /// The functions to look up, and where their addresses go.
    const char *const *symbols;
    void **addresses;
    size_t symbolCount;
    /// 0 until the first load, then 1 when loaded, 2 when not (set by clibrary_load).
    int state;
    /// Why the library could not be loaded (dlerror's text, or a missing function), else "".
    char error[320];
};

/// Loads `library` and looks up all its functions the first time it is called (any thread);
/// 1 when the library and every function were found, else 0 with the reason in its error (the
/// table then stays empty).
int clibrary_load(struct clibrary *library);

/// For a module's table of forwarded functions: `static struct { FUNCTIONS(CLIBRARY_FIELD) } table;`
/// declares a pointer of the right type for each function of the X-macro list FUNCTIONS.
#define CLIBRARY_FIELD(name) __typeof__(name) *name;
#define CLIBRARY_NAME(name) #name,

/// Defines the `struct clibrary` of a module whose table is `table` (declared as above from
/// FUNCTIONS), to be loaded from the files listed after it, and the module's two public
/// functions PREFIX_available() (1 once loaded, loading on the first call) and
/// PREFIX_load_error() (why not, or "").
#define CLIBRARY_DEFINE(prefix, label, table, FUNCTIONS, ...)                                          \
    static const char *const prefix##_functions[] = {FUNCTIONS(CLIBRARY_NAME)};                      \
    _Static_assert(sizeof table == sizeof prefix##_functions / sizeof(char *) * sizeof(void *),      \
                   "one pointer a function");                                                        \
    static const char *const prefix##_files[] = {__VA_ARGS__};                                       \
    static struct clibrary prefix##_library = {                                                      \
        label, prefix##_files, sizeof prefix##_files / sizeof(char *), prefix##_functions,          \
        (void **)&table, sizeof prefix##_functions / sizeof(char *), 0, ""};                        \
    int prefix##_available(void) { return clibrary_load(&prefix##_library); }                        \
    const char *prefix##_load_error(void) {                                                          \
        clibrary_load(&prefix##_library);                                                            \
        return prefix##_library.error;                                                               \
    }

#endif
