#include "CCurl.h"

#if defined(__linux__)

#include "CLibraryLoader.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * libcurl's ABI as libcurl.so.4 has kept it: its handles are pointers, its codes and enumerations
 * ints, curl_off_t 64 bits. These are the functions Foundation's URLSession calls (`nm -u` of the
 * toolchain's lib_CFURLSessionInterface.a lists them); a function it starts calling in a later
 * toolchain fails the command's link until it is added here.
 */
typedef long long ccurl_off_t;

#define CCURL_FUNCTIONS(X, V)                                                                              \
    X(int, curl_global_init, (long flags), (flags))                                                        \
    X(void *, curl_easy_init, (void), ())                                                                  \
    V(curl_easy_cleanup, (void *easy), (easy))                                                             \
    X(int, curl_easy_pause, (void *easy, int bitmask), (easy, bitmask))                                    \
    X(const char *, curl_easy_strerror, (int code), (code))                                                \
    V(curl_free, (void *pointer), (pointer))                                                               \
    X(void *, curl_multi_init, (void), ())                                                                 \
    X(int, curl_multi_cleanup, (void *multi), (multi))                                                     \
    X(int, curl_multi_add_handle, (void *multi, void *easy), (multi, easy))                                \
    X(int, curl_multi_remove_handle, (void *multi, void *easy), (multi, easy))                             \
    X(int, curl_multi_assign, (void *multi, int socket, void *data), (multi, socket, data))                \
    X(void *, curl_multi_info_read, (void *multi, int *queued), (multi, queued))                           \
    X(int, curl_multi_socket_action, (void *multi, int socket, int events, int *running),                  \
      (multi, socket, events, running))                                                                    \
    X(void *, curl_slist_append, (void *list, const char *text), (list, text))                             \
    V(curl_slist_free_all, (void *list), (list))                                                           \
    X(void *, curl_url, (void), ())                                                                        \
    X(int, curl_url_get, (void *url, int part, char **text, unsigned int flags), (url, part, text, flags)) \
    X(int, curl_url_set, (void *url, int part, const char *text, unsigned int flags),                      \
      (url, part, text, flags))                                                                            \
    X(char *, curl_version, (void), ())                                                                    \
    X(void *, curl_version_info, (int age), (age))

/* The three that take one more argument of a type their option says. */
#define CCURL_VARIADIC_FUNCTIONS(X)                                                                        \
    X(curl_easy_setopt)                                                                                    \
    X(curl_multi_setopt)                                                                                   \
    X(curl_easy_getinfo)

typedef struct {
#define CCURL_FIELD(ret, name, params, args) ret(*name) params;
#define CCURL_FIELD_VOID(name, params, args) void(*name) params;
#define CCURL_FIELD_VARIADIC(name) int (*name)(void *, int, ...);
    CCURL_FUNCTIONS(CCURL_FIELD, CCURL_FIELD_VOID)
    CCURL_VARIADIC_FUNCTIONS(CCURL_FIELD_VARIADIC)
} CCurlFunctions;

static CCurlFunctions functions;
static int loaded;
static char failure[768];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    /* Debian's libcurl4 (OpenSSL), then its GnuTLS build, which has the same ABI. */
    static const char *const candidates[] = {"libcurl.so.4", "libcurl-gnutls.so.4"};
    const clibrary_description libcurl = {
        .name = "libcurl",
        .purpose = "which a replica's sync runs on",
        .install = "Debian: apt install libcurl4",
        .variable = "SECTIONCTL_LIBCURL",
        .candidates = candidates,
        .candidate_count = sizeof candidates / sizeof *candidates,
    };
    void *library = clibrary_open(&libcurl, failure, sizeof failure);
    if (!library) return;
#define CCURL_RESOLVE(name)                                                                                        \
    if (!clibrary_resolve(library, &libcurl, #name, &functions.name, "libcurl 7.62 or later", failure, sizeof failure)) { \
        memset(&functions, 0, sizeof functions);                                                                   \
        return;                                                                                                    \
    }
#define CCURL_RESOLVE_X(ret, name, params, args) CCURL_RESOLVE(name)
#define CCURL_RESOLVE_VOID(name, params, args) CCURL_RESOLVE(name)
    CCURL_FUNCTIONS(CCURL_RESOLVE_X, CCURL_RESOLVE_VOID)
    CCURL_VARIADIC_FUNCTIONS(CCURL_RESOLVE)
    loaded = 1;
}

int ccurl_load(void) {
    pthread_once(&once, load);
    return loaded;
}

/* URLSession has no way to hear that libcurl is missing: the command says so and stops, before
 * the sync has sent anything. Whatever it had begun in its file is rolled back as after any exit;
 * `_exit` runs no destructors under the threads still running. */
static const CCurlFunctions *table(void) {
    if (!ccurl_load()) {
        fprintf(stderr, "sectionctl: error: %s\n", failure);
        fflush(stderr);
        _exit(1);
    }
    return &functions;
}

#define CCURL_DEFINE(ret, name, params, args) \
    ret name params { return table()->name args; }
#define CCURL_DEFINE_VOID(name, params, args) \
    void name params { table()->name args; }
CCURL_FUNCTIONS(CCURL_DEFINE, CCURL_DEFINE_VOID)

/*
 * An option's number says the type of its argument, as libcurl's own option table does: below
 * 10000 a long, below 30000 a pointer (to data or a function), below 40000 a curl_off_t, and from
 * 40000 a pointer to a blob. The multi handle's options use the same ranges.
 */
#define CCURL_SETOPT(name)                                                                                   \
    int name(void *handle, int option, ...) {                                                                \
        const CCurlFunctions *f = table();                                                                   \
        va_list arguments;                                                                                   \
        va_start(arguments, option);                                                                         \
        int result;                                                                                          \
        if (option < 10000) {                                                                                \
            long value = va_arg(arguments, long);                                                            \
            result = f->name(handle, option, value);                                                         \
        } else if (option >= 30000 && option < 40000) {                                                      \
            ccurl_off_t value = va_arg(arguments, ccurl_off_t);                                              \
            result = f->name(handle, option, value);                                                         \
        } else {                                                                                             \
            void *value = va_arg(arguments, void *);                                                         \
            result = f->name(handle, option, value);                                                         \
        }                                                                                                    \
        va_end(arguments);                                                                                   \
        return result;                                                                                       \
    }
CCURL_SETOPT(curl_easy_setopt)
CCURL_SETOPT(curl_multi_setopt)

/* Every piece of information is written through one pointer. */
int curl_easy_getinfo(void *handle, int info, ...) {
    const CCurlFunctions *f = table();
    va_list arguments;
    va_start(arguments, info);
    void *destination = va_arg(arguments, void *);
    va_end(arguments);
    return f->curl_easy_getinfo(handle, info, destination);
}

#else

int ccurl_load(void) { return 1; }

#endif
