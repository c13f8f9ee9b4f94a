#ifndef PRESIGND_CPOSTGRES_LOADER_H
#define PRESIGND_CPOSTGRES_LOADER_H
/* libpq is loaded on first use (dlopen), not linked: a server on SQLite never maps libpq and the
 * dozen libraries it pulls in (GnuTLS, Kerberos, LDAP: about 3.4 MiB of resident memory).
 * The PQ* functions the Records module calls are defined in loader.c with libpq's own prototypes
 * and forward to the loaded library. */
#include <postgresql/libpq-fe.h>

/* 1 when libpq could be loaded (loading it if needed); 0 otherwise. */
int presignd_libpq_available(void);
/* Why loading failed (dlerror's text), or NULL. */
const char *presignd_libpq_error(void);
#endif
