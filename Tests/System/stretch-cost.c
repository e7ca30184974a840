// What one Rubber Band stretcher costs where this runs, with the daemon's options
// (Sources/RubberBand/TimeStretcher.swift, R3 short window) at 80 %: the start of a stream
// (reset, then 512-frame blocks until the first frame after its start delay: its start pad
// and start delay) and one second of output after it. Five rounds; the first pays for the
// first touch of the stretcher's buffers.
//
//   gcc -O2 Tests/System/stretch-cost.c -o /tmp/stretch-cost -lrubberband -lm
//   /tmp/stretch-cost                                   # the host
//   Tests/System/boxrun -- /tmp/stretch-cost            # the box (qemu TCG)
#include <math.h>
#include <rubberband/rubberband-c.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(void) {
    const int block = 512;
    RubberBandOptions options = RubberBandOptionProcessRealTime | RubberBandOptionThreadingNever
        | RubberBandOptionChannelsTogether | RubberBandOptionEngineFiner | RubberBandOptionWindowShort;
    RubberBandState s = rubberband_new(48000, 2, options, 100.0 / 80.0, 1.0);
    rubberband_set_max_process_size(s, block);
    printf("start pad %u frames, start delay %u frames\n", rubberband_get_preferred_start_pad(s),
           rubberband_get_start_delay(s));
    float *in[2], *out[2];
    for (int c = 0; c < 2; c++) {
        in[c] = calloc(block, sizeof(float));
        out[c] = calloc(8192, sizeof(float));
    }
    for (int i = 0; i < block; i++) in[0][i] = in[1][i] = 0.3f * sinf(i * 0.0576f);
    for (int round = 0; round < 5; round++) {
        rubberband_reset(s);
        int delay = (int)rubberband_get_start_delay(s), got = 0, blocks = 0, a;
        double t0 = now();
        while (got <= delay) {
            rubberband_process(s, (const float *const *)in, block, 0);
            blocks++;
            while ((a = rubberband_available(s)) > 0) got += (int)rubberband_retrieve(s, out, a < 8192 ? a : 8192);
        }
        double t1 = now();
        int produced = 0, steady = 0;
        while (produced < 48000) {
            rubberband_process(s, (const float *const *)in, block, 0);
            steady++;
            while ((a = rubberband_available(s)) > 0) produced += (int)rubberband_retrieve(s, out, a < 8192 ? a : 8192);
        }
        double t2 = now();
        printf("stream start: %d blocks in %.3f ms; 1 s of output at 80 %%: %d blocks in %.3f ms\n", blocks,
               (t1 - t0) * 1e3, steady, (t2 - t1) * 1e3);
    }
    rubberband_delete(s);
    return 0;
}
