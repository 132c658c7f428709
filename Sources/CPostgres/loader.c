#include "CPostgres.h"

#include "CLibraryLoader.h"

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

static void load(void) {
    const clibrary_description libpq = {
        .name = "libpq",
        .purpose = "the PostgreSQL client library",
        .install = "Debian: apt install libpq5; macOS: brew install libpq",
        .variable = "SECTIONCTL_LIBPQ",
        .candidates = candidates,
        .candidate_count = sizeof candidates / sizeof *candidates,
    };
    void *library = clibrary_open(&libpq, failure, sizeof failure);
    if (!library) return;
#define CPOSTGRES_RESOLVE(name)                                                                                   \
    if (!clibrary_resolve(library, &libpq, #name, &functions.name, "libpq 10 or later", failure, sizeof failure)) { \
        memset(&functions, 0, sizeof functions);                                                                  \
        return;                                                                                                   \
    }
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
