#ifndef SECTIONCTL_CSQLITE_BASELINE_SHIM_H
#define SECTIONCTL_CSQLITE_BASELINE_SHIM_H

/* The system SQLite, for the C baseline: the library the Repository links, reached on its own. */
#include <sqlite3.h>

#endif
