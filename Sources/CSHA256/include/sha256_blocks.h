#pragma once
#include <stddef.h>
#include <stdint.h>

/// Whether this CPU has the SHA-256 instructions `segmance_sha256_blocks` uses (x86-64 SHA
/// extensions with SSSE3 and SSE4.1); asked once, then cached.
int segmance_sha256_blocks_available(void);

/// Runs SHA-256's compression function over `blocks` 64-byte blocks at `data`, updating
/// `state` (a, b, … h). Only when `segmance_sha256_blocks_available()` says so.
void segmance_sha256_blocks(uint32_t state[8], const uint8_t *data, size_t blocks);
