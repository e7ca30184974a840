// SHA-256's compression function with the x86 SHA extensions (sha256rnds2, sha256msg1,
// sha256msg2): about eight times the throughput of the portable Swift code on a CPU that
// has them, which makes the content hash of a stick file a few milliseconds instead of
// tens. SegmanceLibrary's SHA256 uses it when the CPU says so and its own code otherwise.
#include "sha256_blocks.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>

static const uint32_t k[64] __attribute__((aligned(16))) = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

int segmance_sha256_blocks_available(void) {
    static int known = -1;
    if (known < 0) {
        unsigned a, b, c, d;
        int ssse3_sse41 = __get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 9)) && (c & (1u << 19));
        int sha = __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 29));
        known = ssse3_sse41 && sha;
    }
    return known;
}

__attribute__((target("sha,ssse3,sse4.1")))
void segmance_sha256_blocks(uint32_t state[8], const uint8_t *data, size_t blocks) {
    // Big-endian words from the message bytes.
    const __m128i swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    // The instructions keep the state as ABEF and CDGH.
    __m128i tmp = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[0]), 0xB1);  // CDAB
    __m128i cdgh = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[4]), 0x1B); // EFGH
    __m128i abef = _mm_alignr_epi8(tmp, cdgh, 8);
    cdgh = _mm_blend_epi16(cdgh, tmp, 0xF0);
    for (; blocks > 0; blocks--, data += 64) {
        const __m128i abef0 = abef, cdgh0 = cdgh;
        // w[j & 3] holds message words 4j … 4j+3 of the 16 groups of four rounds.
        __m128i w[4];
        for (int i = 0; i < 4; i++) w[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16 * i)), swap);
        for (int j = 0; j < 16; j++) {
            __m128i msg = _mm_add_epi32(w[j & 3], _mm_load_si128((const __m128i *)&k[4 * j]));
            cdgh = _mm_sha256rnds2_epu32(cdgh, abef, msg);
            abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(msg, 0x0E));
            if (j < 12) {
                // Words 4(j+4) … from groups j (t-16, and t-15 with j+1), j+2/j+3 (t-7), j+3 (t-2).
                __m128i next = _mm_sha256msg1_epu32(w[j & 3], w[(j + 1) & 3]);
                next = _mm_add_epi32(next, _mm_alignr_epi8(w[(j + 3) & 3], w[(j + 2) & 3], 4));
                w[j & 3] = _mm_sha256msg2_epu32(next, w[(j + 3) & 3]);
            }
        }
        abef = _mm_add_epi32(abef, abef0);
        cdgh = _mm_add_epi32(cdgh, cdgh0);
    }
    tmp = _mm_shuffle_epi32(abef, 0x1B);   // FEBA
    cdgh = _mm_shuffle_epi32(cdgh, 0xB1);  // DCHG
    _mm_storeu_si128((__m128i *)&state[0], _mm_blend_epi16(tmp, cdgh, 0xF0));  // DCBA
    _mm_storeu_si128((__m128i *)&state[4], _mm_alignr_epi8(cdgh, tmp, 8));     // HGFE
}

#else

int segmance_sha256_blocks_available(void) { return 0; }

void segmance_sha256_blocks(uint32_t state[8], const uint8_t *data, size_t blocks) {
    (void)state; (void)data; (void)blocks;
}

#endif
