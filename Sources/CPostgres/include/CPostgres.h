#ifndef SECTIONCTL_CPOSTGRES_H
#define SECTIONCTL_CPOSTGRES_H

/*
 * libpq, loaded when first needed rather than linked.
 *
 * A process that opens only SQLite files never loads libpq, nor the ~20 libraries libpq needs
 * (TLS, Kerberos, LDAP…): the dynamic linker's work for those was most of `sectionctl`'s start.
 * `cpostgres_load()` opens the library (once, thread-safely) and resolves the functions below;
 * each wrapper calls through that table under libpq's own name, so code reads as plain libpq.
 *
 * The types and constants are libpq's stable ABI (libpq.so.5, PostgreSQL 10 and later), declared
 * here so that building needs no libpq headers. `.ci/libpq-abi` compiles this header against the
 * system's <libpq-fe.h> and fails if a declaration differs.
 */

#ifdef __cplusplus
extern "C" {
#endif

#ifndef CPOSTGRES_ABI_CHECK

typedef unsigned int Oid;
typedef struct pg_conn PGconn;
typedef struct pg_result PGresult;

typedef enum {
    CONNECTION_OK = 0,
    CONNECTION_BAD = 1
    /* libpq's other states (2…) are steps of a connection in progress. */
} ConnStatusType;

typedef enum {
    PGRES_POLLING_FAILED = 0,
    PGRES_POLLING_READING = 1,
    PGRES_POLLING_WRITING = 2,
    PGRES_POLLING_OK = 3,
    PGRES_POLLING_ACTIVE = 4
} PostgresPollingStatusType;

typedef enum {
    PGRES_EMPTY_QUERY = 0,
    PGRES_COMMAND_OK = 1,
    PGRES_TUPLES_OK = 2,
    PGRES_COPY_OUT = 3,
    PGRES_COPY_IN = 4,
    PGRES_BAD_RESPONSE = 5,
    PGRES_NONFATAL_ERROR = 6,
    PGRES_FATAL_ERROR = 7,
    PGRES_COPY_BOTH = 8,
    PGRES_SINGLE_TUPLE = 9,
    PGRES_PIPELINE_SYNC = 10,
    PGRES_PIPELINE_ABORTED = 11
} ExecStatusType;

typedef enum {
    PQTRANS_IDLE = 0,
    PQTRANS_ACTIVE = 1,
    PQTRANS_INTRANS = 2,
    PQTRANS_INERROR = 3,
    PQTRANS_UNKNOWN = 4
} PGTransactionStatusType;

typedef enum {
    PQPING_OK = 0,
    PQPING_REJECT = 1,
    PQPING_NO_RESPONSE = 2,
    PQPING_NO_ATTEMPT = 3
} PGPing;

typedef enum {
    PQERRORS_TERSE = 0,
    PQERRORS_DEFAULT = 1,
    PQERRORS_VERBOSE = 2
} PGVerbosity;

typedef struct pgNotify {
    char *relname;
    int be_pid;
    char *extra;
    struct pgNotify *next;
} PGnotify;

typedef void (*PQnoticeProcessor)(void *arg, const char *message);

typedef struct _PQconninfoOption {
    char *keyword;
    char *envvar;
    char *compiled;
    char *val;
    char *label;
    char *dispchar;
    int dispsize;
} PQconninfoOption;

#endif /* CPOSTGRES_ABI_CHECK */

/*
 * The functions used, as X(return type, name, parameters, arguments); VOID for those returning
 * nothing. The loader resolves each by name; a library lacking one is refused as a whole.
 */
#define CPOSTGRES_FUNCTIONS(X, VOID) \
    X(PGconn *, PQconnectStart, (const char *conninfo), (conninfo)) \
    X(PostgresPollingStatusType, PQconnectPoll, (PGconn *conn), (conn)) \
    X(ConnStatusType, PQstatus, (const PGconn *conn), (conn)) \
    X(PGTransactionStatusType, PQtransactionStatus, (const PGconn *conn), (conn)) \
    X(char *, PQerrorMessage, (const PGconn *conn), (conn)) \
    X(int, PQsocket, (const PGconn *conn), (conn)) \
    X(int, PQbackendPID, (const PGconn *conn), (conn)) \
    X(char *, PQhost, (const PGconn *conn), (conn)) \
    X(char *, PQport, (const PGconn *conn), (conn)) \
    X(int, PQconnectionNeedsPassword, (const PGconn *conn), (conn)) \
    X(PGPing, PQping, (const char *conninfo), (conninfo)) \
    VOID(PQfinish, (PGconn *conn), (conn)) \
    X(PQconninfoOption *, PQconninfo, (PGconn *conn), (conn)) \
    X(PQconninfoOption *, PQconninfoParse, (const char *conninfo, char **errmsg), (conninfo, errmsg)) \
    VOID(PQconninfoFree, (PQconninfoOption *options), (options)) \
    X(PGVerbosity, PQsetErrorVerbosity, (PGconn *conn, PGVerbosity verbosity), (conn, verbosity)) \
    X(PQnoticeProcessor, PQsetNoticeProcessor, (PGconn *conn, PQnoticeProcessor proc, void *arg), (conn, proc, arg)) \
    X(PGresult *, PQexec, (PGconn *conn, const char *query), (conn, query)) \
    X(PGresult *, PQexecParams, \
      (PGconn *conn, const char *command, int nParams, const Oid *paramTypes, const char *const *paramValues, \
       const int *paramLengths, const int *paramFormats, int resultFormat), \
      (conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats, resultFormat)) \
    X(PGresult *, PQprepare, (PGconn *conn, const char *stmtName, const char *query, int nParams, const Oid *paramTypes), \
      (conn, stmtName, query, nParams, paramTypes)) \
    X(int, PQsendQueryParams, \
      (PGconn *conn, const char *command, int nParams, const Oid *paramTypes, const char *const *paramValues, \
       const int *paramLengths, const int *paramFormats, int resultFormat), \
      (conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats, resultFormat)) \
    X(int, PQsendQueryPrepared, \
      (PGconn *conn, const char *stmtName, int nParams, const char *const *paramValues, const int *paramLengths, \
       const int *paramFormats, int resultFormat), \
      (conn, stmtName, nParams, paramValues, paramLengths, paramFormats, resultFormat)) \
    X(int, PQsetSingleRowMode, (PGconn *conn), (conn)) \
    X(PGresult *, PQgetResult, (PGconn *conn), (conn)) \
    X(int, PQconsumeInput, (PGconn *conn), (conn)) \
    X(int, PQisBusy, (PGconn *conn), (conn)) \
    X(int, PQflush, (PGconn *conn), (conn)) \
    X(PGnotify *, PQnotifies, (PGconn *conn), (conn)) \
    X(int, PQputCopyData, (PGconn *conn, const char *buffer, int nbytes), (conn, buffer, nbytes)) \
    X(int, PQputCopyEnd, (PGconn *conn, const char *errormsg), (conn, errormsg)) \
    X(ExecStatusType, PQresultStatus, (const PGresult *res), (res)) \
    X(char *, PQresultErrorMessage, (const PGresult *res), (res)) \
    X(char *, PQresultErrorField, (const PGresult *res, int fieldcode), (res, fieldcode)) \
    X(int, PQntuples, (const PGresult *res), (res)) \
    X(char *, PQcmdTuples, (PGresult *res), (res)) \
    X(char *, PQgetvalue, (const PGresult *res, int tup_num, int field_num), (res, tup_num, field_num)) \
    X(int, PQgetisnull, (const PGresult *res, int tup_num, int field_num), (res, tup_num, field_num)) \
    VOID(PQclear, (PGresult *res), (res)) \
    VOID(PQfreemem, (void *ptr), (ptr))

/*
 * Functions of libpq 14 and later (pipeline mode), which an older library lacks: resolved when
 * present, NULL otherwise. `cpostgres_has_pipeline()` says which; call them only when it is 1.
 */
#define CPOSTGRES_OPTIONAL_FUNCTIONS(X) \
    X(int, PQenterPipelineMode, (PGconn *conn), (conn)) \
    X(int, PQexitPipelineMode, (PGconn *conn), (conn)) \
    X(int, PQpipelineSync, (PGconn *conn), (conn)) \
    X(int, PQsendFlushRequest, (PGconn *conn), (conn))

#define CPOSTGRES_FIELD(ret, name, params, args) ret (*name) params;
#define CPOSTGRES_VOID_FIELD(name, params, args) void (*name) params;
/** The resolved functions. */
typedef struct CPostgresFunctions {
    CPOSTGRES_FUNCTIONS(CPOSTGRES_FIELD, CPOSTGRES_VOID_FIELD)
    CPOSTGRES_OPTIONAL_FUNCTIONS(CPOSTGRES_FIELD)
} CPostgresFunctions;
#undef CPOSTGRES_FIELD
#undef CPOSTGRES_VOID_FIELD

/**
 * Loads libpq, once per process: the path in `SECTIONCTL_LIBPQ` when it is set, else the
 * platform's names for libpq 5 (`libpq.so.5`; on Apple platforms `libpq.5.dylib`, then the
 * usual Homebrew and Postgres.app places). Returns 1 when every function resolved, else 0; then
 * `cpostgres_load_error()` says why. Safe to call from any thread, any number of times.
 */
int cpostgres_load(void);

/**
 * 1 when the loaded libpq has pipeline mode (libpq 14 and later: `CPOSTGRES_OPTIONAL_FUNCTIONS`)
 * and `SECTIONCTL_LIBPQ_PIPELINE` is not `0`, else 0.
 */
int cpostgres_has_pipeline(void);

/** Why `cpostgres_load()` failed, on one line; empty when it has not failed. */
const char *cpostgres_load_error(void);

/**
 * The resolved functions. Only after `cpostgres_load()` returned 1: calling a libpq function
 * before that ends the process with a message naming the mistake.
 */
const CPostgresFunctions *cpostgres_functions(void);

#ifndef CPOSTGRES_ABI_CHECK
#define CPOSTGRES_WRAPPER(ret, name, params, args) \
    static inline ret name params { return cpostgres_functions()->name args; }
#define CPOSTGRES_VOID_WRAPPER(name, params, args) \
    static inline void name params { cpostgres_functions()->name args; }
CPOSTGRES_FUNCTIONS(CPOSTGRES_WRAPPER, CPOSTGRES_VOID_WRAPPER)
CPOSTGRES_OPTIONAL_FUNCTIONS(CPOSTGRES_WRAPPER)
#undef CPOSTGRES_WRAPPER
#undef CPOSTGRES_VOID_WRAPPER
#endif

#ifdef __cplusplus
}
#endif

#endif /* SECTIONCTL_CPOSTGRES_H */
