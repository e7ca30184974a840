// Linux calls the Glibc module does not import: signalfd, eventfd, timerfd, mlock2, naming a
// thread, what a child process needs (pidfd, closing inherited descriptors, the parent's
// death), starting a file's writeback, a thread-safe strerror, malloc's arenas. Only LinuxSystem
// imports it.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

// From <unistd.h>, which this module does not include (its fd_set clashes with Dispatch's).
extern long syscall(long number, ...);

extern int pthread_setname_np(pthread_t thread, const char *name);

/// SCHED_BATCH, which the Glibc module leaves out (a GNU extension of <sched.h>).
static const int segmance_sched_batch = SCHED_BATCH;

static inline int segmance_eventfd(unsigned int initial, int nonblocking) {
    return eventfd(initial, EFD_CLOEXEC | (nonblocking ? EFD_NONBLOCK : 0));
}

/// mallopt(M_ARENA_MAX, arenas): how many arenas malloc may make (<malloc.h>).
static inline int segmance_limit_arenas(int arenas) {
    return mallopt(M_ARENA_MAX, arenas);
}

/// mlock2(MLOCK_ONFAULT): pages are locked as they are touched, as mlockall(MCL_ONFAULT) does.
static inline int segmance_mlock_onfault(const void *address, size_t length) {
    return mlock2(address, length, MLOCK_ONFAULT);
}

/// pidfd_open(2): a descriptor that is readable once the process `pid` has ended.
static inline int segmance_pidfd_open(int pid) {
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

/// Closes every descriptor from `first` up (close_range(2)).
static inline int segmance_close_from(unsigned int first) {
    return (int)syscall(SYS_close_range, first, ~0U, 0);
}

/// The calling process gets `signal` when its parent ends (prctl PR_SET_PDEATHSIG).
static inline int segmance_parent_death_signal(int signal) {
    return prctl(PR_SET_PDEATHSIG, (unsigned long)signal, 0, 0, 0);
}

/// sync_file_range(SYNC_FILE_RANGE_WRITE): starts writing the dirty pages of a file's byte
/// range to the disk, without waiting for it.
static inline int segmance_start_writeback(int fd, long long offset, long long count) {
    return (int)syscall(SYS_sync_file_range, fd, offset, count, 2 /* SYNC_FILE_RANGE_WRITE */);
}

/// The strerror text of `code` in `buffer` (GNU strerror_r: thread-safe, unlike strerror).
static inline const char *segmance_strerror(int code, char *buffer, size_t length) {
    return strerror_r(code, buffer, length);
}
