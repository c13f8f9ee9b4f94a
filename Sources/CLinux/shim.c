// Functions that need _GNU_SOURCE, compiled here so the header stays importable by Swift.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "CLinux.h"

int presignd_accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags) {
    return accept4(fd, addr, len, flags);
}

int presignd_set_thread_name(const char *name) {
    return pthread_setname_np(pthread_self(), name);
}

int presignd_set_thread_nice(int nice) {
    return setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), nice);
}

int presignd_thread_nice(void) {
    return getpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid));
}

int presignd_affinity_cpu_count(void) {
    /* A mask of CPU_SETSIZE (1024) bits first; the kernel answers EINVAL when its own mask is larger,
       so double until it fits (Linux's NR_CPUS is at most 8192 today). */
    for (int bits = CPU_SETSIZE; bits <= (1 << 16); bits *= 2) {
        cpu_set_t *set = CPU_ALLOC(bits);
        if (set == NULL) return -1;
        size_t size = CPU_ALLOC_SIZE(bits);
        CPU_ZERO_S(size, set);
        if (sched_getaffinity(0, size, set) == 0) {
            int count = CPU_COUNT_S(size, set);
            CPU_FREE(set);
            return count;
        }
        int error = errno;
        CPU_FREE(set);
        if (error != EINVAL) return -1;
    }
    return -1;
}

int presignd_punch_hole(int fd, long long offset, long long length) {
    return fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)offset, (off_t)length);
}
