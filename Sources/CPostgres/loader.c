#include "CPostgres.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static CPostgresFunctions functions;
static int loaded;
static int pipeline;
static char failure[768];
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* The names libpq 5 goes by where it is usually installed. */
static const char *const candidates[] = {
#if defined(__APPLE__)
    "libpq.5.dylib",
    "/opt/homebrew/opt/libpq/lib/libpq.5.dylib",
    "/usr/local/opt/libpq/lib/libpq.5.dylib",
    "/opt/homebrew/lib/libpq.5.dylib",
    "/usr/local/lib/libpq.5.dylib",
    "/Applications/Postgres.app/Contents/Versions/latest/lib/libpq.5.dylib",
#else
    "libpq.so.5",
    "libpq.so",
#endif
};

/* dlerror()'s text on one line, at most `size` bytes with the NUL. */
static void copy_line(char *to, size_t size, const char *text) {
    size_t n = 0;
    for (; text && text[n] && n + 1 < size; n++) to[n] = (text[n] == '\n' || text[n] == '\r') ? ' ' : text[n];
    to[n] = '\0';
}

static void load(void) {
    void *library = NULL;
    char first[512] = "";
    const char *chosen = getenv("SECTIONCTL_LIBPQ");
    if (chosen && *chosen) {
        library = dlopen(chosen, RTLD_NOW | RTLD_LOCAL);
        if (!library) {
            copy_line(first, sizeof first, dlerror());
            snprintf(failure, sizeof failure, "cannot load libpq from SECTIONCTL_LIBPQ=%s (%s)", chosen, first);
            return;
        }
    } else {
        for (size_t i = 0; i < sizeof candidates / sizeof *candidates && !library; i++) {
            library = dlopen(candidates[i], RTLD_NOW | RTLD_LOCAL);
            if (!library && i == 0) copy_line(first, sizeof first, dlerror());
        }
        if (!library) {
            snprintf(failure, sizeof failure,
                     "cannot load libpq, the PostgreSQL client library (%s): install it (Debian: apt install libpq5; "
                     "macOS: brew install libpq), or name its file in SECTIONCTL_LIBPQ",
                     first);
            return;
        }
    }
#define CPOSTGRES_RESOLVE(name)                                                                              \
    do {                                                                                                     \
        void *symbol = dlsym(library, #name);                                                                \
        if (!symbol) {                                                                                       \
            snprintf(failure, sizeof failure, "the libpq this process loaded lacks %s: it needs libpq 10 or later", #name); \
            dlclose(library);                                                                                \
            memset(&functions, 0, sizeof functions);                                                         \
            return;                                                                                          \
        }                                                                                                    \
        memcpy(&functions.name, &symbol, sizeof symbol);                                                     \
    } while (0);
#define CPOSTGRES_RESOLVE_X(ret, name, params, args) CPOSTGRES_RESOLVE(name)
#define CPOSTGRES_RESOLVE_VOID(name, params, args) CPOSTGRES_RESOLVE(name)
    CPOSTGRES_FUNCTIONS(CPOSTGRES_RESOLVE_X, CPOSTGRES_RESOLVE_VOID)
    /* Pipeline mode is used where the library has it, and done without where it does not. */
#define CPOSTGRES_RESOLVE_OPTIONAL(ret, name, params, args)                                                  \
    do {                                                                                                     \
        void *symbol = dlsym(library, #name);                                                                \
        memcpy(&functions.name, &symbol, sizeof symbol);                                                     \
        if (!symbol) pipeline = 0;                                                                           \
    } while (0);
    pipeline = 1;
    CPOSTGRES_OPTIONAL_FUNCTIONS(CPOSTGRES_RESOLVE_OPTIONAL)
    /* SECTIONCTL_LIBPQ_PIPELINE=0 does without it where the library has it: as an older one would. */
    const char *wanted = getenv("SECTIONCTL_LIBPQ_PIPELINE");
    if (wanted && strcmp(wanted, "0") == 0) pipeline = 0;
    loaded = 1;
}

int cpostgres_load(void) {
    pthread_once(&once, load);
    return loaded;
}

int cpostgres_has_pipeline(void) {
    return cpostgres_load() && pipeline;
}

const char *cpostgres_load_error(void) {
    pthread_once(&once, load);
    return failure;
}

const CPostgresFunctions *cpostgres_functions(void) {
    if (!cpostgres_load()) {
        fprintf(stderr, "a libpq function was called though libpq could not be loaded: %s\n", failure);
        abort();
    }
    return &functions;
}
