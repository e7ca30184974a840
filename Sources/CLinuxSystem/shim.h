// Linux calls the Glibc module does not import: signalfd, eventfd, mlock2, and naming a thread.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/eventfd.h>

extern int pthread_setname_np(pthread_t thread, const char *name);

static inline int segmance_eventfd(unsigned int initial, int nonblocking) {
    return eventfd(initial, EFD_CLOEXEC | (nonblocking ? EFD_NONBLOCK : 0));
}

/// mlock2(MLOCK_ONFAULT): pages are locked as they are touched, as mlockall(MCL_ONFAULT) does.
static inline int segmance_mlock_onfault(const void *address, size_t length) {
    return mlock2(address, length, MLOCK_ONFAULT);
}
