// Linux calls the Glibc module does not import: signalfd, eventfd, and naming a thread.
#include <pthread.h>
#include <sys/signalfd.h>
#include <sys/eventfd.h>

extern int pthread_setname_np(pthread_t thread, const char *name);

static inline int segmance_eventfd(unsigned int initial, int nonblocking) {
    return eventfd(initial, EFD_CLOEXEC | (nonblocking ? EFD_NONBLOCK : 0));
}
