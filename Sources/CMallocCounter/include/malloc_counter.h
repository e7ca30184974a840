#pragma once
/// Counts heap calls made by the calling thread between begin and end. Linked into the
/// test bundle only: it interposes malloc and friends for the whole process and forwards
/// them to glibc.
void segmance_alloc_count_begin(void);
long segmance_alloc_count_end(void);
