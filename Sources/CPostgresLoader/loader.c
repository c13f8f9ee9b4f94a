// Loads libpq.so.5 on first use and forwards the PQ* functions presignd uses to it.
// Each forwarder has libpq-fe.h's prototype (the compiler checks them against the header).
#include "CPostgresLoader.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

#define PQ_FUNCTIONS(X) \
    X(PGconn *, PQconnectdbParams, (const char *const *keywords, const char *const *values, int expand_dbname), (keywords, values, expand_dbname)) \
    X(PGTransactionStatusType, PQtransactionStatus, (const PGconn *conn), (conn)) \
    X(char *, PQerrorMessage, (const PGconn *conn), (conn)) \
    X(PQnoticeProcessor, PQsetNoticeProcessor, (PGconn *conn, PQnoticeProcessor proc, void *arg), (conn, proc, arg)) \
    X(PGresult *, PQexecParams, (PGconn *conn, const char *command, int nParams, const Oid *paramTypes, const char *const *paramValues, const int *paramLengths, const int *paramFormats, int resultFormat), (conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats, resultFormat)) \
    X(PGresult *, PQprepare, (PGconn *conn, const char *stmtName, const char *query, int nParams, const Oid *paramTypes), (conn, stmtName, query, nParams, paramTypes)) \
    X(PGresult *, PQexecPrepared, (PGconn *conn, const char *stmtName, int nParams, const char *const *paramValues, const int *paramLengths, const int *paramFormats, int resultFormat), (conn, stmtName, nParams, paramValues, paramLengths, paramFormats, resultFormat)) \
    X(ExecStatusType, PQresultStatus, (const PGresult *res), (res)) \
    X(char *, PQresultErrorMessage, (const PGresult *res), (res)) \
    X(char *, PQresultErrorField, (const PGresult *res, int fieldcode), (res, fieldcode)) \
    X(int, PQntuples, (const PGresult *res), (res)) \
    X(char *, PQcmdStatus, (PGresult *res), (res)) \
    X(char *, PQcmdTuples, (PGresult *res), (res)) \
    X(char *, PQgetvalue, (const PGresult *res, int tup_num, int field_num), (res, tup_num, field_num)) \
    X(int, PQgetlength, (const PGresult *res, int tup_num, int field_num), (res, tup_num, field_num)) \
    X(int, PQgetisnull, (const PGresult *res, int tup_num, int field_num), (res, tup_num, field_num)) \
    X(PQconninfoOption *, PQconninfoParse, (const char *conninfo, char **errmsg), (conninfo, errmsg)) \
    X(int, PQputCopyData, (PGconn *conn, const char *buffer, int nbytes), (conn, buffer, nbytes)) \
    X(int, PQputCopyEnd, (PGconn *conn, const char *errormsg), (conn, errormsg)) \
    X(PGresult *, PQgetResult, (PGconn *conn), (conn))

#define DECLARE_POINTER(ret, name, params, args) static ret (*p_##name) params;
PQ_FUNCTIONS(DECLARE_POINTER)
static ConnStatusType (*p_PQstatus)(const PGconn *);
static void (*p_PQfinish)(PGconn *);
static void (*p_PQclear)(PGresult *);
static void (*p_PQfreemem)(void *);
static void (*p_PQconninfoFree)(PQconninfoOption *);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static void *handle;
static const char *load_error;

static void load(void) {
    handle = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        load_error = dlerror();
        return;
    }
#define LOAD_POINTER(ret, name, params, args) *(void **)(&p_##name) = dlsym(handle, #name);
    PQ_FUNCTIONS(LOAD_POINTER)
    *(void **)(&p_PQstatus) = dlsym(handle, "PQstatus");
    *(void **)(&p_PQfinish) = dlsym(handle, "PQfinish");
    *(void **)(&p_PQclear) = dlsym(handle, "PQclear");
    *(void **)(&p_PQfreemem) = dlsym(handle, "PQfreemem");
    *(void **)(&p_PQconninfoFree) = dlsym(handle, "PQconninfoFree");
    if (!p_PQconnectdbParams || !p_PQstatus || !p_PQfinish || !p_PQclear || !p_PQfreemem || !p_PQconninfoFree ||
        !p_PQexecParams || !p_PQprepare || !p_PQexecPrepared || !p_PQconninfoParse || !p_PQgetvalue ||
        !p_PQputCopyData || !p_PQputCopyEnd || !p_PQgetResult) {
        load_error = "libpq.so.5 lacks a function presignd needs";
        handle = NULL;
    }
}

int presignd_libpq_available(void) {
    pthread_once(&once, load);
    return handle != NULL;
}

const char *presignd_libpq_error(void) {
    pthread_once(&once, load);
    return load_error;
}

// Forwarders. Without libpq, the constructors return NULL (the callers report the connection as
// unavailable); the others are only reachable with a connection or result from libpq.
#define DEFINE_FORWARDER(ret, name, params, args) \
    ret name params { \
        if (!presignd_libpq_available()) return (ret)0; \
        return p_##name args; \
    }
PQ_FUNCTIONS(DEFINE_FORWARDER)

ConnStatusType PQstatus(const PGconn *conn) {
    if (!presignd_libpq_available()) return CONNECTION_BAD;
    return p_PQstatus(conn);
}
void PQfinish(PGconn *conn) { if (presignd_libpq_available()) p_PQfinish(conn); }
void PQclear(PGresult *res) { if (presignd_libpq_available()) p_PQclear(res); }
void PQfreemem(void *ptr) { if (presignd_libpq_available()) p_PQfreemem(ptr); }
void PQconninfoFree(PQconninfoOption *o) { if (presignd_libpq_available()) p_PQconninfoFree(o); }
