#include "malloc_counter.h"
#include <stddef.h>
#include <errno.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SEGMANCE_SANITIZED 1
#endif
#endif

#ifdef SEGMANCE_SANITIZED
// Under AddressSanitizer or ThreadSanitizer (Tests/Sanitizers/run.sh) the sanitizer owns
// malloc: an interposer here would hand it glibc's blocks and crash the bundle at start.
// Nothing is counted, and the end says so (-1), so a count test fails rather than passes.
void segmance_alloc_count_begin(void) {}
long segmance_alloc_count_end(void) { return -1; }
#else
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);

static __thread int counting;
static __thread long count;

void segmance_alloc_count_begin(void) { count = 0; counting = 1; }
long segmance_alloc_count_end(void) { counting = 0; return count; }

void *malloc(size_t n) { if (counting) count++; return __libc_malloc(n); }
void *calloc(size_t a, size_t b) { if (counting) count++; return __libc_calloc(a, b); }
void *realloc(void *p, size_t n) { if (counting) count++; return __libc_realloc(p, n); }
void free(void *p) { if (counting && p) count++; __libc_free(p); }
void *memalign(size_t a, size_t n) { if (counting) count++; return __libc_memalign(a, n); }
void *aligned_alloc(size_t a, size_t n) { if (counting) count++; return __libc_memalign(a, n); }
int posix_memalign(void **out, size_t a, size_t n) {
    if (counting) count++;
    void *p = __libc_memalign(a, n);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}
#endif
