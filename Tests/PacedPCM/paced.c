// segpaced: a paced playback PCM for the engine tests, an ALSA I/O plugin (ioplug) that needs
// no sound card and no server. Its clock is CLOCK_MONOTONIC, not the engine's: the device
// starts playing at t0 (the start trigger) and plays stream frame n at t0 + n / rate, whatever
// the threads do. It fetches each period at the moment that period starts to play (as a jack
// cycle takes its period), and its hardware pointer moves a period at a time, at each period's
// start ("period" pointer: the frames before it are played). `pointer "continuous"` moves it
// frame by frame instead and fetches 32 frames at a time (a DMA engine's burst). A thread of its
// own wakes at each period's start (the period interrupt), fetches and makes the poll
// descriptor readable; the application's own pointer calls and writes fetch what is due too, so
// nothing is written over before it was fetched, late thread or not.
//
// What it played is the truth the tests judge the engine against, written by the plugin, not
// by the engine:
//   capture FILE  the samples of every frame fetched, in stream order (raw, the format granted)
//   truth FILE    one line per event, times in CLOCK_MONOTONIC ns:
//                   start FRAME T0           the stream (from FRAME) starts playing at T0
//                   fetch FRAME T FETCHED    the frames fetched at stream frame FRAME (a period, or
//                                            32 frames with a continuous pointer) play from T
//                                            (nominal); fetched at FETCHED
//                   short FRAME MISSING      a fetch with MISSING frames not yet written
//                   xrun FRAME T             the pointer passed the frames written (an underrun)
//                   late FRAME COUNT         COUNT frames from FRAME written after the device had
//                                            fetched them (a rewind into what it took): not played
//                   stop FRAME T             stopped (drop or drain) after FRAME frames played
// Options: rate 48000 (the only rate offered), pace PERCENT (100: the device plays
// PERCENT % as fast, for sanitizer builds too slow for real time), pointer "period"|"continuous".
//
// Built by Tests/PacedPCM/build.sh (the engine tests run it) into
// libasound_module_pcm_segpaced.so, loaded through private configuration:
//   pcm_type.segpaced { lib "/path/libasound_module_pcm_segpaced.so" }
//   pcm.x { type segpaced capture "/tmp/c.raw" truth "/tmp/t.txt" }

#include <alsa/asoundlib.h>
#include <alsa/pcm_external.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

// What it keeps in memory until a stop: 16 min of 48 kHz S16 stereo (FLOAT_LE: 8), a log of
// 64 MiB (a line a period is 2 MiB for 16 min).
static const size_t capture_capacity = (size_t)1 << 28;
static const size_t log_capacity = (size_t)1 << 26;

// Frames a "continuous" device fetches at a time (a DMA engine's burst).
static const snd_pcm_uframes_t fine_unit = 32;

typedef struct {
    snd_pcm_ioplug_t io;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_t thread;
    int thread_made, quit;
    int running;          // between start and stop
    int xrun;
    int continuous;
    long pace;            // percent
    FILE *capture, *truth;      // the files, written at stop, prepare and close
    FILE *log;                  // the truth's lines, in `log_memory` until then
    char *log_memory;
    long log_saved;
    unsigned char *captured;    // the frames fetched, until written out
    size_t captured_bytes, captured_saved, captured_capacity;
    unsigned rate;
    size_t frame_bytes;
    snd_pcm_uframes_t period, buffer, avail_min;
    snd_pcm_uframes_t unit;  // frames fetched at a time: the period, or `fine_unit` (continuous)
    unsigned char *ring;  // `buffer` frames, frame n of the stream at n % buffer
    int64_t t0;           // when the stream's first frame of this start plays
    uint64_t base;        // frames played before this start (earlier starts)
    uint64_t written;     // this start's frames written (the application pointer, 64 bits)
    uint64_t fetched;     // this start's frames fetched (whole periods, the last one maybe short)
    uint64_t hw;          // this start's frames played, as the pointer says
    snd_pcm_uframes_t last_appl;
} paced_t;

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

// Frames the device has played by `t` since t0, at the pace.
static uint64_t played_by(const paced_t *p, int64_t t) {
    if (t <= p->t0) return 0;
    __int128 frames = (__int128)(t - p->t0) * p->rate * p->pace / 100 / 1000000000;
    return (uint64_t)frames;
}

// When frame `n` of this start plays.
static int64_t time_of(const paced_t *p, uint64_t n) {
    return p->t0 + (int64_t)((__int128)n * 1000000000 * 100 / ((__int128)p->rate * p->pace));
}

// Keeps one fetched frame (no heap call: the memory is mapped at open, committed as used).
static void keep(paced_t *p, const unsigned char *frame) {
    if (p->captured_bytes + p->frame_bytes > p->captured_capacity) return;
    memcpy(p->captured + p->captured_bytes, frame, p->frame_bytes);
    p->captured_bytes += p->frame_bytes;
}

// Writes what was fetched and logged since the last save to the files. Called locked, never
// while the application waits on a period (stop, prepare, close).
static void save(paced_t *p) {
    fwrite(p->captured + p->captured_saved, 1, p->captured_bytes - p->captured_saved, p->capture);
    p->captured_saved = p->captured_bytes;
    fflush(p->log);
    long end = ftell(p->log);
    if (end > p->log_saved) fwrite(p->log_memory + p->log_saved, 1, (size_t)(end - p->log_saved), p->truth);
    p->log_saved = end;
    fflush(p->capture);
    fflush(p->truth);
}

// Fetches every period whose start has passed by `t` and moves the pointer. Called locked.
static void advance(paced_t *p, int64_t t) {
    if (!p->running || p->xrun) return;
    uint64_t played = played_by(p, t);
    int draining = p->io.state == SND_PCM_STATE_DRAINING;
    while (p->fetched <= played && !(draining && p->fetched >= p->written)) {
        uint64_t start = p->fetched;
        uint64_t have = p->written > start ? p->written - start : 0;
        uint64_t n = have < p->unit ? have : p->unit;
        for (uint64_t i = 0; i < n; i++)
            keep(p, p->ring + ((start + i) % p->buffer) * p->frame_bytes);
        if (n < p->unit && !draining) {
            fprintf(p->log, "short %llu %llu\n", (unsigned long long)(p->base + start),
                    (unsigned long long)(p->unit - n));
            static const unsigned char zeros[64];
            for (uint64_t i = n; i < p->unit; i++) keep(p, zeros);
            n = p->unit;
        }
        fprintf(p->log, "fetch %llu %lld %lld\n", (unsigned long long)(p->base + start),
                (long long)time_of(p, start), (long long)t);
        p->fetched = start + n;
        if (n == 0) break;
    }
    uint64_t hw = p->continuous ? played : played / p->period * p->period;
    if (draining && hw > p->written) hw = p->written;
    if (hw > p->written || (hw == p->written && !draining && hw > p->hw)) {
        // The buffer ran dry: as a kernel driver, stop with an xrun.
        p->xrun = 1;
        fprintf(p->log, "xrun %llu %lld\n", (unsigned long long)(p->base + p->written), (long long)t);
        return;
    }
    p->hw = hw;
}

static void *thread_main(void *arg) {
    paced_t *p = arg;
    struct sched_param param = { .sched_priority = 60 };
    pthread_setschedparam(pthread_self(), SCHED_FIFO, &param); // where permitted, as an interrupt
    pthread_mutex_lock(&p->lock);
    while (!p->quit) {
        if (!p->running || p->xrun) {
            pthread_cond_wait(&p->wake, &p->lock);
            continue;
        }
        // The next period's start.
        uint64_t next = (played_by(p, now_ns()) / p->period + 1) * p->period;
        int64_t due = time_of(p, next);
        pthread_mutex_unlock(&p->lock);
        struct timespec ts = { .tv_sec = due / 1000000000, .tv_nsec = due % 1000000000 };
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {}
        pthread_mutex_lock(&p->lock);
        advance(p, now_ns());
        uint64_t one = 1;
        if (write(p->io.poll_fd, &one, 8) < 0) {}
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

static int paced_start(snd_pcm_ioplug_t *io) {
    paced_t *p = io->private_data;
    pthread_mutex_lock(&p->lock);
    p->t0 = now_ns();
    p->running = 1;
    fprintf(p->log, "start %llu %lld\n", (unsigned long long)p->base, (long long)p->t0);
    pthread_cond_signal(&p->wake);
    pthread_mutex_unlock(&p->lock);
    return 0;
}

static int paced_stop(snd_pcm_ioplug_t *io) {
    paced_t *p = io->private_data;
    pthread_mutex_lock(&p->lock);
    if (p->running) {
        advance(p, now_ns());
        p->running = 0;
        fprintf(p->log, "stop %llu %lld\n", (unsigned long long)(p->base + p->hw), (long long)now_ns());
    }
    save(p);
    pthread_mutex_unlock(&p->lock);
    return 0;
}

static snd_pcm_sframes_t paced_pointer(snd_pcm_ioplug_t *io) {
    paced_t *p = io->private_data;
    pthread_mutex_lock(&p->lock);
    advance(p, now_ns());
    snd_pcm_sframes_t result = p->xrun ? -EPIPE : (snd_pcm_sframes_t)(p->hw % p->buffer);
    pthread_mutex_unlock(&p->lock);
    return result;
}

static snd_pcm_sframes_t paced_transfer(snd_pcm_ioplug_t *io, const snd_pcm_channel_area_t *areas,
                                        snd_pcm_uframes_t offset, snd_pcm_uframes_t size) {
    paced_t *p = io->private_data;
    const unsigned char *from = (const unsigned char *)areas[0].addr + (areas[0].first + areas[0].step * offset) / 8;
    pthread_mutex_lock(&p->lock);
    // What has started to play is fetched before it can be written over (after a rewind).
    advance(p, now_ns());
    // The application pointer moves back on a rewind: follow it, signed.
    p->written += (int64_t)(io->appl_ptr - p->last_appl);
    if (p->written < p->fetched) {
        uint64_t over = p->fetched - p->written;
        fprintf(p->log, "late %llu %llu\n", (unsigned long long)(p->base + p->written),
                (unsigned long long)(over < size ? over : size));
    }
    for (snd_pcm_uframes_t i = 0; i < size; i++)
        memcpy(p->ring + ((p->written + i) % p->buffer) * p->frame_bytes, from + i * p->frame_bytes, p->frame_bytes);
    p->written += size;
    p->last_appl = io->appl_ptr + size;
    pthread_mutex_unlock(&p->lock);
    return size;
}

static int paced_prepare(snd_pcm_ioplug_t *io) {
    paced_t *p = io->private_data;
    pthread_mutex_lock(&p->lock);
    p->base += p->fetched;
    p->written = p->fetched = p->hw = 0;
    p->last_appl = 0;
    p->xrun = 0;
    p->running = 0;
    save(p);
    uint64_t drained;
    if (read(io->poll_fd, &drained, 8) < 0) {}
    pthread_mutex_unlock(&p->lock);
    return 0;
}

static int paced_hw_params(snd_pcm_ioplug_t *io, snd_pcm_hw_params_t *params) {
    (void)params;
    paced_t *p = io->private_data;
    pthread_mutex_lock(&p->lock);
    p->rate = io->rate;
    p->period = io->period_size;
    p->buffer = io->buffer_size;
    p->unit = p->continuous && p->period > fine_unit ? fine_unit : p->period;
    p->frame_bytes = (size_t)snd_pcm_format_physical_width(io->format) / 8 * io->channels;
    free(p->ring);
    p->ring = calloc(p->buffer, p->frame_bytes);
    pthread_mutex_unlock(&p->lock);
    return p->ring ? 0 : -ENOMEM;
}

static int paced_sw_params(snd_pcm_ioplug_t *io, snd_pcm_sw_params_t *params) {
    paced_t *p = io->private_data;
    snd_pcm_uframes_t avail_min = 1;
    snd_pcm_sw_params_get_avail_min(params, &avail_min);
    pthread_mutex_lock(&p->lock);
    p->avail_min = avail_min ? avail_min : 1;
    pthread_mutex_unlock(&p->lock);
    return 0;
}

// Readable (POLLOUT for the application) while there is room for avail_min frames, as a
// kernel driver's descriptor is; the period interrupt's mark is taken only when there is not.
static int paced_poll_revents(snd_pcm_ioplug_t *io, struct pollfd *pfd, unsigned int nfds,
                              unsigned short *revents) {
    paced_t *p = io->private_data;
    (void)pfd;
    (void)nfds;
    *revents = 0;
    snd_pcm_sframes_t avail = snd_pcm_avail_update(io->pcm);
    if (avail < 0) {
        *revents = POLLERR;
    } else if ((snd_pcm_uframes_t)avail >= p->avail_min) {
        *revents = POLLOUT;
    } else {
        uint64_t drained;
        if (read(io->poll_fd, &drained, 8) < 0) {}
    }
    return 0;
}

static int paced_close(snd_pcm_ioplug_t *io) {
    paced_t *p = io->private_data;
    pthread_mutex_lock(&p->lock);
    p->quit = 1;
    pthread_cond_signal(&p->wake);
    pthread_mutex_unlock(&p->lock);
    if (p->thread_made) pthread_join(p->thread, NULL);
    save(p);
    fclose(p->log);
    fclose(p->capture);
    fclose(p->truth);
    munmap(p->captured, p->captured_capacity);
    munmap(p->log_memory, log_capacity);
    close(io->poll_fd);
    free(p->ring);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->wake);
    free(p);
    return 0;
}

static const snd_pcm_ioplug_callback_t callbacks = {
    .start = paced_start,
    .stop = paced_stop,
    .pointer = paced_pointer,
    .transfer = paced_transfer,
    .prepare = paced_prepare,
    .hw_params = paced_hw_params,
    .sw_params = paced_sw_params,
    .poll_revents = paced_poll_revents,
    .close = paced_close,
};

SND_PCM_PLUGIN_DEFINE_FUNC(segpaced) {
    (void)root;
    const char *capture = NULL, *truth = NULL, *pointer = "period";
    long rate = 48000, pace = 100;
    snd_config_iterator_t i, next;
    snd_config_for_each(i, next, conf) {
        snd_config_t *n = snd_config_iterator_entry(i);
        const char *id;
        if (snd_config_get_id(n, &id) < 0) continue;
        if (!strcmp(id, "comment") || !strcmp(id, "type") || !strcmp(id, "hint")) continue;
        if (!strcmp(id, "capture") && snd_config_get_string(n, &capture) == 0) continue;
        if (!strcmp(id, "truth") && snd_config_get_string(n, &truth) == 0) continue;
        if (!strcmp(id, "pointer") && snd_config_get_string(n, &pointer) == 0) continue;
        if (!strcmp(id, "rate") && snd_config_get_integer(n, &rate) == 0) continue;
        if (!strcmp(id, "pace") && snd_config_get_integer(n, &pace) == 0) continue;
        SNDERR("segpaced: unknown or malformed field %s", id);
        return -EINVAL;
    }
    if (!capture || !truth) {
        SNDERR("segpaced: capture and truth files are required");
        return -EINVAL;
    }
    if (strcmp(pointer, "period") && strcmp(pointer, "continuous")) {
        SNDERR("segpaced: pointer is \"period\" or \"continuous\", not %s", pointer);
        return -EINVAL;
    }
    if (stream != SND_PCM_STREAM_PLAYBACK || pace < 1 || pace > 100 || rate < 8000) return -EINVAL;
    paced_t *p = calloc(1, sizeof(*p));
    if (!p) return -ENOMEM;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->wake, NULL);
    p->pace = pace;
    p->continuous = !strcmp(pointer, "continuous");
    p->capture = fopen(capture, "wb");
    p->truth = fopen(truth, "w");
    // Kept in memory until a stop, so that fetching on the application's thread (its pointer
    // calls fetch) makes no heap call and writes no file there: mapped now, committed as used.
    p->captured_capacity = capture_capacity;
    p->captured = mmap(NULL, capture_capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    p->log_memory = mmap(NULL, log_capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    p->log = p->log_memory != MAP_FAILED ? fmemopen(p->log_memory, log_capacity, "w") : NULL;
    if (p->log) setvbuf(p->log, NULL, _IONBF, 0);
    int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (!p->capture || !p->truth || !p->log || p->captured == MAP_FAILED || fd < 0) {
        SNDERR("segpaced: cannot open %s or %s", capture, truth);
        if (p->capture) fclose(p->capture);
        if (p->truth) fclose(p->truth);
        if (fd >= 0) close(fd);
        free(p);
        return -ENOMEM;
    }
    p->io.version = SND_PCM_IOPLUG_VERSION;
    p->io.name = "segpaced: a paced test PCM";
    p->io.callback = &callbacks;
    p->io.private_data = p;
    p->io.poll_fd = fd;
    p->io.poll_events = POLLIN;
    p->io.mmap_rw = 0;
    int err = snd_pcm_ioplug_create(&p->io, name, stream, mode);
    if (err < 0) {
        close(fd);
        fclose(p->log);
        fclose(p->capture);
        fclose(p->truth);
        free(p);
        return err;
    }
    static const unsigned int access[] = { SND_PCM_ACCESS_RW_INTERLEAVED };
    static const unsigned int formats[] = { SND_PCM_FORMAT_S16_LE, SND_PCM_FORMAT_FLOAT_LE };
    if ((err = snd_pcm_ioplug_set_param_list(&p->io, SND_PCM_IOPLUG_HW_ACCESS, 1, access)) < 0 ||
        (err = snd_pcm_ioplug_set_param_list(&p->io, SND_PCM_IOPLUG_HW_FORMAT, 2, formats)) < 0 ||
        (err = snd_pcm_ioplug_set_param_minmax(&p->io, SND_PCM_IOPLUG_HW_CHANNELS, 2, 2)) < 0 ||
        (err = snd_pcm_ioplug_set_param_minmax(&p->io, SND_PCM_IOPLUG_HW_RATE, rate, rate)) < 0 ||
        (err = snd_pcm_ioplug_set_param_minmax(&p->io, SND_PCM_IOPLUG_HW_PERIODS, 2, 64)) < 0 ||
        (err = snd_pcm_ioplug_set_param_minmax(&p->io, SND_PCM_IOPLUG_HW_PERIOD_BYTES, 64, 1 << 20)) < 0 ||
        (err = snd_pcm_ioplug_set_param_minmax(&p->io, SND_PCM_IOPLUG_HW_BUFFER_BYTES, 128, 1 << 24)) < 0) {
        snd_pcm_ioplug_delete(&p->io);
        return err;
    }
    if (pthread_create(&p->thread, NULL, thread_main, p) != 0) {
        snd_pcm_ioplug_delete(&p->io);
        return -EAGAIN;
    }
    p->thread_made = 1;
    *pcmp = p->io.pcm;
    return 0;
}

SND_PCM_PLUGIN_SYMBOL(segpaced);
