// Linux descriptors the Glibc module does not bring in: signalfd, eventfd.
#include <sys/signalfd.h>
#include <sys/eventfd.h>
