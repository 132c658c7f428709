#ifndef SECTIONCTL_CSQLITE_SHIM_H
#define SECTIONCTL_CSQLITE_SHIM_H

#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro casting -1 to a function pointer; Swift cannot import it.
static inline sqlite3_destructor_type csqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

/// sqlite3_db_config is variadic; this wrapper sets an integer option.
static inline int csqlite_db_config_int(sqlite3 *db, int option, int value) {
    int result = 0;
    return sqlite3_db_config(db, option, value, &result);
}

/// A valid pointer to an empty C string, for binding empty text.
static inline const char *csqlite_empty_string(void) {
    return "";
}

#endif
