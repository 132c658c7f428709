#ifndef SECTIONCTL_CPOSTGRES_SHIM_H
#define SECTIONCTL_CPOSTGRES_SHIM_H

#include <libpq-fe.h>

#endif
