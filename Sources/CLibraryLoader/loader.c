#include "CLibraryLoader.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* dlerror()'s text on one line, at most `size` bytes with the NUL. */
static void copy_line(char *to, size_t size, const char *text) {
    size_t n = 0;
    for (; text && text[n] && n + 1 < size; n++) to[n] = (text[n] == '\n' || text[n] == '\r') ? ' ' : text[n];
    to[n] = '\0';
}

void *clibrary_open(const clibrary_description *library, char *failure, size_t failure_size) {
    char reason[512] = "";
    const char *chosen = getenv(library->variable);
    if (chosen && *chosen) {
        void *opened = dlopen(chosen, RTLD_NOW | RTLD_LOCAL);
        if (!opened) {
            copy_line(reason, sizeof reason, dlerror());
            snprintf(failure, failure_size, "cannot load %s from %s=%s (%s)", library->name, library->variable, chosen, reason);
        }
        return opened;
    }
    for (size_t i = 0; i < library->candidate_count; i++) {
        void *opened = dlopen(library->candidates[i], RTLD_NOW | RTLD_LOCAL);
        if (opened) return opened;
        /* The first name's reason: the usual one, and the one to fix. */
        if (i == 0) copy_line(reason, sizeof reason, dlerror());
    }
    snprintf(failure, failure_size, "cannot load %s, %s (%s): install it (%s), or name its file in %s", library->name, library->purpose,
             reason, library->install, library->variable);
    return NULL;
}

int clibrary_resolve(void *opened, const clibrary_description *library, const char *symbol, void *slot, const char *needs, char *failure,
                     size_t failure_size) {
    void *found = dlsym(opened, symbol);
    if (!found) {
        snprintf(failure, failure_size, "the %s this process loaded lacks %s: it needs %s", library->name, symbol, needs);
        dlclose(opened);
        return 0;
    }
    memcpy(slot, &found, sizeof found);
    return 1;
}
