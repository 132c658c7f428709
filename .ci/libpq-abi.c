/*
 * Checks Sources/CPostgres/include/CPostgres.h against the system's <libpq-fe.h>. Compiled twice,
 * never run (`.ci/run`, with -fsyntax-only): with -DAGAINST_LIBPQ, libpq's own declarations must
 * give every function the loader resolves the type the header gives it, and the values and
 * layouts below; without, the header's declarations must give the same values and layouts.
 */
#include <stddef.h>
#define SAME(expression, value) _Static_assert((expression) == (value), #expression " is not " #value);
#ifdef AGAINST_LIBPQ
#include <libpq-fe.h>
#include <postgres_ext.h>
#define CPOSTGRES_ABI_CHECK
#endif
#include "../Sources/CPostgres/include/CPostgres.h"

#ifdef AGAINST_LIBPQ
SAME(PG_DIAG_SQLSTATE, 'C')  /* PostgresConnection asks for the SQLSTATE field by this letter */
#define SAME_FUNCTION(ret, name, params, args) \
    _Static_assert(__builtin_types_compatible_p(__typeof__(&name), ret(*) params), #name " differs from libpq's");
#define SAME_VOID_FUNCTION(name, params, args) SAME_FUNCTION(void, name, params, args)
CPOSTGRES_FUNCTIONS(SAME_FUNCTION, SAME_VOID_FUNCTION)
CPOSTGRES_OPTIONAL_FUNCTIONS(SAME_FUNCTION)
#endif

SAME(sizeof(Oid), 4)
SAME(CONNECTION_OK, 0) SAME(CONNECTION_BAD, 1)
SAME(PGRES_POLLING_FAILED, 0) SAME(PGRES_POLLING_READING, 1) SAME(PGRES_POLLING_WRITING, 2)
SAME(PGRES_POLLING_OK, 3) SAME(PGRES_POLLING_ACTIVE, 4)
SAME(PGRES_EMPTY_QUERY, 0) SAME(PGRES_COMMAND_OK, 1) SAME(PGRES_TUPLES_OK, 2) SAME(PGRES_COPY_OUT, 3)
SAME(PGRES_COPY_IN, 4) SAME(PGRES_BAD_RESPONSE, 5) SAME(PGRES_NONFATAL_ERROR, 6) SAME(PGRES_FATAL_ERROR, 7)
SAME(PGRES_COPY_BOTH, 8) SAME(PGRES_SINGLE_TUPLE, 9) SAME(PGRES_PIPELINE_SYNC, 10) SAME(PGRES_PIPELINE_ABORTED, 11)
SAME(PQTRANS_IDLE, 0) SAME(PQTRANS_ACTIVE, 1) SAME(PQTRANS_INTRANS, 2) SAME(PQTRANS_INERROR, 3) SAME(PQTRANS_UNKNOWN, 4)
SAME(PQERRORS_TERSE, 0) SAME(PQERRORS_DEFAULT, 1) SAME(PQERRORS_VERBOSE, 2)
SAME(PQPING_OK, 0) SAME(PQPING_REJECT, 1) SAME(PQPING_NO_RESPONSE, 2) SAME(PQPING_NO_ATTEMPT, 3)

/* The structs the header declares, field by field, as on a 64-bit and a 32-bit target alike. */
#define P sizeof(char *)
SAME(offsetof(PGnotify, relname), 0) SAME(offsetof(PGnotify, be_pid), P)
SAME(offsetof(PGnotify, extra), 2 * P) SAME(offsetof(PGnotify, next), 3 * P) SAME(sizeof(PGnotify), 4 * P)
SAME(offsetof(PQconninfoOption, keyword), 0) SAME(offsetof(PQconninfoOption, envvar), P)
SAME(offsetof(PQconninfoOption, compiled), 2 * P) SAME(offsetof(PQconninfoOption, val), 3 * P)
SAME(offsetof(PQconninfoOption, label), 4 * P) SAME(offsetof(PQconninfoOption, dispchar), 5 * P)
SAME(offsetof(PQconninfoOption, dispsize), 6 * P) SAME(sizeof(PQconninfoOption), 7 * P)
