#ifndef SECTIONCTL_CLIBRARYLOADER_H
#define SECTIONCTL_CLIBRARYLOADER_H

/*
 * What the loaders of libraries opened on first use share (`CPostgres` for libpq, `CCurl` for
 * libcurl): which file to open, and one line that says why none would open.
 */

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library a loader opens and how a user gets it, for its messages. */
typedef struct {
    /* Its usual name: "libpq". */
    const char *name;
    /* What it is for, after a comma: "the PostgreSQL client library". */
    const char *purpose;
    /* How to install it: "Debian: apt install libpq5". */
    const char *install;
    /* The environment variable that names its file instead: "SECTIONCTL_LIBPQ". */
    const char *variable;
    /* The names the system's loader finds it by, tried in order. */
    const char *const *candidates;
    size_t candidate_count;
} clibrary_description;

/*
 * Opens the file the description's variable names when it is set, else the first candidate
 * that opens (`dlopen`, RTLD_NOW | RTLD_LOCAL). NULL when none does, with one line in `failure`
 * saying which and why ("cannot load libpq from SECTIONCTL_LIBPQ=/x (…)", or "cannot load
 * libpq, the PostgreSQL client library (…): install it (…), or name its file in
 * SECTIONCTL_LIBPQ").
 */
void *clibrary_open(const clibrary_description *library, char *failure, size_t failure_size);

/*
 * Copies the address of the function `symbol` of `opened` (what `clibrary_open` returned for
 * `library`) into the function pointer at `slot`: 1. When the library has no such function, it
 * is closed and `failure` says so ("the libpq this process loaded lacks PQping: it needs libpq
 * 10 or later", `needs` being "libpq 10 or later"): 0.
 */
int clibrary_resolve(void *opened, const clibrary_description *library, const char *symbol, void *slot, const char *needs, char *failure,
                     size_t failure_size);

#ifdef __cplusplus
}
#endif

#endif
