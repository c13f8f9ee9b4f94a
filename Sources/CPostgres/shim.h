#ifndef PRESIGND_CPOSTGRES_SHIM_H
#define PRESIGND_CPOSTGRES_SHIM_H
#include <postgresql/libpq-fe.h>
#endif
