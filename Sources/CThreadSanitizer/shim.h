// ThreadSanitizer's annotations of plain memory accesses, for memory the sanitizer cannot
// see being read or written: a generic copy in a debug build runs in the Swift runtime's
// value witnesses (`swift_...` in libswiftCore, not instrumented), so ThreadSanitizer sees
// neither side of a race on it. The entry points are weak: in a build without
// ThreadSanitizer they are null and these functions do nothing (one test, no call).
#pragma once

extern void __tsan_read_range(void *address, unsigned long size) __attribute__((weak));
extern void __tsan_write_range(void *address, unsigned long size) __attribute__((weak));

/// Tells ThreadSanitizer (when it runs) that the calling thread read `size` bytes at `address`.
static inline void segmance_tsan_read_range(const void *address, unsigned long size) {
    if (__tsan_read_range) __tsan_read_range((void *)address, size);
}

/// Tells ThreadSanitizer (when it runs) that the calling thread wrote `size` bytes at `address`.
static inline void segmance_tsan_write_range(void *address, unsigned long size) {
    if (__tsan_write_range) __tsan_write_range(address, size);
}
