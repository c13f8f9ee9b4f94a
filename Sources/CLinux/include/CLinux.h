#ifndef PRESIGND_CLINUX_H
#define PRESIGND_CLINUX_H
/* Linux facilities that Glibc's Swift overlay does not import. */
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/signalfd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <pthread.h>
#include <time.h>
#include <errno.h>

/* The values of epoll's event flags as plain integers (they are enum constants in glibc). */
static inline unsigned int presignd_EPOLLIN(void) { return EPOLLIN; }
static inline unsigned int presignd_EPOLLOUT(void) { return EPOLLOUT; }
static inline unsigned int presignd_EPOLLERR(void) { return EPOLLERR; }
static inline unsigned int presignd_EPOLLHUP(void) { return EPOLLHUP; }
static inline unsigned int presignd_EPOLLRDHUP(void) { return EPOLLRDHUP; }
static inline unsigned int presignd_EPOLLET(void) { return EPOLLET; }

/* epoll_event is packed on x86_64; Swift cannot read its fields safely, so these do. */
static inline void presignd_epoll_event_set(struct epoll_event *ev, unsigned int events, unsigned long long data) {
    ev->events = events;
    ev->data.u64 = data;
}
static inline unsigned int presignd_epoll_event_events(const struct epoll_event *evs, int i) { return evs[i].events; }
static inline unsigned long long presignd_epoll_event_data(const struct epoll_event *evs, int i) { return evs[i].data.u64; }
static inline unsigned long presignd_epoll_event_size(void) { return sizeof(struct epoll_event); }

/* accept4(2) and pthread_setname_np(3) need _GNU_SOURCE: defined in shim.c. */
int presignd_accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags);
int presignd_set_thread_name(const char *name);
/* Sets the calling thread's nice value to `nice` (setpriority(2) on its own thread id: on Linux a
   thread's priority is its own); 0, or -1 with errno. Raising it needs no privilege. */
int presignd_set_thread_nice(int nice);
/* The calling thread's nice value (getpriority(2) on its own thread id). */
int presignd_thread_nice(void);
/* Frees a file's blocks in [offset, offset + length) without changing its size (fallocate(2) with
   FALLOC_FL_PUNCH_HOLE); 0, or -1 with errno (EOPNOTSUPP on a filesystem without it). */
int presignd_punch_hole(int fd, long long offset, long long length);

/* The number of CPUs in the calling thread's affinity mask (sched_getaffinity(2) and the CPU_COUNT
   macro, which Swift cannot import; needs _GNU_SOURCE: defined in shim.c), or -1 when it cannot be read. */
int presignd_affinity_cpu_count(void);

/* accept4 flags and signal masks. */
static inline int presignd_SOCK_NONBLOCK(void) { return SOCK_NONBLOCK; }
static inline int presignd_SOCK_CLOEXEC(void) { return SOCK_CLOEXEC; }
static inline int presignd_block_signals(int a, int b, int c) {
    sigset_t set; sigemptyset(&set);
    if (a) sigaddset(&set, a);
    if (b) sigaddset(&set, b);
    if (c) sigaddset(&set, c);
    return pthread_sigmask(SIG_BLOCK, &set, 0);
}
/* Waits for one of up to three signals (blocked beforehand); returns the signal number or -1. */
static inline int presignd_wait_signals(int a, int b, int c) {
    sigset_t set; sigemptyset(&set);
    if (a) sigaddset(&set, a);
    if (b) sigaddset(&set, b);
    if (c) sigaddset(&set, c);
    int sig = 0;
    if (sigwait(&set, &sig) != 0) return -1;
    return sig;
}
/* Waits up to `ms` milliseconds for one of up to three signals (blocked beforehand); returns the signal
   number, 0 when the time ran out, or -1 on another error. */
static inline int presignd_wait_signals_timeout(int a, int b, int c, long ms) {
    sigset_t set; sigemptyset(&set);
    if (a) sigaddset(&set, a);
    if (b) sigaddset(&set, b);
    if (c) sigaddset(&set, c);
    struct timespec t; t.tv_sec = ms / 1000; t.tv_nsec = (ms % 1000) * 1000000L;
    for (;;) {
        int sig = sigtimedwait(&set, 0, &t);
        if (sig > 0) return sig;
        if (errno == EAGAIN) return 0;
        if (errno != EINTR) return -1;
    }
}
#endif
