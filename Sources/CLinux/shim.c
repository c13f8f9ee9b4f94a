// Functions that need _GNU_SOURCE, compiled here so the header stays importable by Swift.
#define _GNU_SOURCE
#include <pthread.h>
#include <sys/socket.h>
#include "CLinux.h"

int presignd_accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags) {
    return accept4(fd, addr, len, flags);
}

int presignd_set_thread_name(const char *name) {
    return pthread_setname_np(pthread_self(), name);
}
