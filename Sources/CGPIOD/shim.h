// One small GPIO API over libgpiod 1.6 (Debian 12) and libgpiod 2.x (Debian 13, Raspberry Pi OS),
// chosen by the header that is installed: only v1 defines GPIOD_LINE_BULK_MAX_LINES.
// Each requested line has its own event fd in both (v2: one request per line), so the Swift
// wrapper has one code path.
#ifndef SEGMANCE_CGPIOD_SHIM_H
#define SEGMANCE_CGPIOD_SHIM_H

#include <gpiod.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#ifdef GPIOD_LINE_BULK_MAX_LINES
#define SGPIO_API_VERSION 1
#else
#define SGPIO_API_VERSION 2
#include <linux/gpio.h>
#endif

/// Which libgpiod API this build uses: 1 or 2.
static inline int sgpio_api_version(void) { return SGPIO_API_VERSION; }

/// Most edges one `sgpio_read_edges` call returns.
#define SGPIO_EDGE_BATCH 16

/// A chip's identity; the strings are copied (NUL-terminated, cut at 31 bytes).
struct sgpio_chip_info {
    char name[32];
    char label[32];
    unsigned int lines;
};

/// A line's state, as `gpioinfo` shows it.
struct sgpio_line_info {
    char name[32];
    char consumer[32];
    bool named;
    bool has_consumer;
    bool used;
};

/// One edge read from a line's event fd.
struct sgpio_edge {
    uint64_t timestamp_ns;
    bool rising;
};

/// Bias values for `sgpio_request_edges`.
enum sgpio_bias { SGPIO_BIAS_AS_IS, SGPIO_BIAS_DISABLE, SGPIO_BIAS_PULL_UP, SGPIO_BIAS_PULL_DOWN };

static inline void sgpio_copy(char *to, const char *from) {
    strncpy(to, from ? from : "", 31);
    to[31] = 0;
}

static inline struct gpiod_chip *sgpio_chip_open(const char *path) { return gpiod_chip_open(path); }
static inline void sgpio_chip_close(struct gpiod_chip *chip) { gpiod_chip_close(chip); }

#if SGPIO_API_VERSION == 1

/// A requested line: libgpiod 1's line object.
typedef struct gpiod_line sgpio_request;

static inline int sgpio_chip_get_info(struct gpiod_chip *chip, struct sgpio_chip_info *info) {
    sgpio_copy(info->name, gpiod_chip_name(chip));
    sgpio_copy(info->label, gpiod_chip_label(chip));
    info->lines = gpiod_chip_num_lines(chip);
    return 0;
}

static inline int sgpio_line_get_info(struct gpiod_chip *chip, unsigned int offset, struct sgpio_line_info *info) {
    struct gpiod_line *line = gpiod_chip_get_line(chip, offset);
    // Another process may have requested or released the line since libgpiod read it.
    if (!line || gpiod_line_update(line) != 0) return -1;
    info->named = gpiod_line_name(line) != NULL;
    sgpio_copy(info->name, gpiod_line_name(line));
    info->has_consumer = gpiod_line_consumer(line) != NULL;
    sgpio_copy(info->consumer, gpiod_line_consumer(line));
    info->used = gpiod_line_is_used(line);
    return 0;
}

/// The offset of the line named `name`, or -1 (errno set).
static inline int64_t sgpio_line_find(struct gpiod_chip *chip, const char *name) {
    errno = 0;
    struct gpiod_line *line = gpiod_chip_find_line(chip, name);
    if (!line) {
        if (errno == 0) errno = ENOENT;
        return -1;
    }
    return gpiod_line_offset(line);
}

/// Requests one line as an input with both-edge events; NULL on failure (errno set).
static inline sgpio_request *sgpio_request_edges(struct gpiod_chip *chip, unsigned int offset,
                                                 const char *consumer, enum sgpio_bias bias, bool active_low) {
    struct gpiod_line *line = gpiod_chip_get_line(chip, offset);
    if (!line) return NULL;
    int flags = active_low ? GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW : 0;
    switch (bias) {
    case SGPIO_BIAS_AS_IS: break;
    case SGPIO_BIAS_DISABLE: flags |= GPIOD_LINE_REQUEST_FLAG_BIAS_DISABLE; break;
    case SGPIO_BIAS_PULL_UP: flags |= GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP; break;
    case SGPIO_BIAS_PULL_DOWN: flags |= GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_DOWN; break;
    }
    if (gpiod_line_request_both_edges_events_flags(line, consumer, flags) != 0) return NULL;
    return line;
}

static inline void sgpio_request_release(sgpio_request *request) { gpiod_line_release(request); }
static inline int sgpio_request_fd(sgpio_request *request) { return gpiod_line_event_get_fd(request); }

/// The logical value (0 or 1) of the requested line, or -1 (errno set).
static inline int sgpio_request_value(sgpio_request *request, unsigned int offset) {
    (void)offset;
    return gpiod_line_get_value(request);
}

/// Reads up to `max` (at most SGPIO_EDGE_BATCH) pending edges from a line event fd: the count,
/// or -1 (errno set: EAGAIN when none is pending on a non-blocking fd, EIO on a cut record).
static inline int sgpio_read_edges(int fd, struct sgpio_edge *edges, unsigned int max) {
    struct gpiod_line_event events[SGPIO_EDGE_BATCH];
    if (max > SGPIO_EDGE_BATCH) max = SGPIO_EDGE_BATCH;
    int count = gpiod_line_event_read_fd_multiple(fd, events, max);
    for (int i = 0; i < count; i++) {
        edges[i].timestamp_ns = (uint64_t)events[i].ts.tv_sec * 1000000000u + (uint64_t)events[i].ts.tv_nsec;
        edges[i].rising = events[i].event_type == GPIOD_LINE_EVENT_RISING_EDGE;
    }
    return count;
}

#else

/// A requested line: a libgpiod 2 request holding that one line.
typedef struct gpiod_line_request sgpio_request;

static inline int sgpio_chip_get_info(struct gpiod_chip *chip, struct sgpio_chip_info *out) {
    struct gpiod_chip_info *info = gpiod_chip_get_info(chip);
    if (!info) return -1;
    sgpio_copy(out->name, gpiod_chip_info_get_name(info));
    sgpio_copy(out->label, gpiod_chip_info_get_label(info));
    out->lines = (unsigned int)gpiod_chip_info_get_num_lines(info);
    gpiod_chip_info_free(info);
    return 0;
}

static inline int sgpio_line_get_info(struct gpiod_chip *chip, unsigned int offset, struct sgpio_line_info *out) {
    struct gpiod_line_info *info = gpiod_chip_get_line_info(chip, offset);
    if (!info) return -1;
    out->named = gpiod_line_info_get_name(info) != NULL;
    sgpio_copy(out->name, gpiod_line_info_get_name(info));
    out->has_consumer = gpiod_line_info_get_consumer(info) != NULL;
    sgpio_copy(out->consumer, gpiod_line_info_get_consumer(info));
    out->used = gpiod_line_info_is_used(info);
    gpiod_line_info_free(info);
    return 0;
}

/// The offset of the line named `name`, or -1 (errno set).
static inline int64_t sgpio_line_find(struct gpiod_chip *chip, const char *name) {
    errno = 0;
    int offset = gpiod_chip_get_line_offset_from_name(chip, name);
    if (offset < 0 && errno == 0) errno = ENOENT;
    return offset;
}

/// Requests one line as an input with both-edge events; NULL on failure (errno set).
static inline sgpio_request *sgpio_request_edges(struct gpiod_chip *chip, unsigned int offset,
                                                 const char *consumer, enum sgpio_bias bias, bool active_low) {
    struct gpiod_line_request *request = NULL;
    struct gpiod_line_settings *settings = gpiod_line_settings_new();
    struct gpiod_line_config *line_config = gpiod_line_config_new();
    struct gpiod_request_config *request_config = gpiod_request_config_new();
    int error = ENOMEM;
    if (settings && line_config && request_config) {
        gpiod_line_settings_set_direction(settings, GPIOD_LINE_DIRECTION_INPUT);
        gpiod_line_settings_set_edge_detection(settings, GPIOD_LINE_EDGE_BOTH);
        gpiod_line_settings_set_event_clock(settings, GPIOD_LINE_CLOCK_MONOTONIC);
        gpiod_line_settings_set_active_low(settings, active_low);
        switch (bias) {
        case SGPIO_BIAS_AS_IS: gpiod_line_settings_set_bias(settings, GPIOD_LINE_BIAS_AS_IS); break;
        case SGPIO_BIAS_DISABLE: gpiod_line_settings_set_bias(settings, GPIOD_LINE_BIAS_DISABLED); break;
        case SGPIO_BIAS_PULL_UP: gpiod_line_settings_set_bias(settings, GPIOD_LINE_BIAS_PULL_UP); break;
        case SGPIO_BIAS_PULL_DOWN: gpiod_line_settings_set_bias(settings, GPIOD_LINE_BIAS_PULL_DOWN); break;
        }
        gpiod_request_config_set_consumer(request_config, consumer);
        if (gpiod_line_config_add_line_settings(line_config, &offset, 1, settings) == 0) {
            request = gpiod_chip_request_lines(chip, request_config, line_config);
        }
        error = errno;
    }
    gpiod_request_config_free(request_config);
    gpiod_line_config_free(line_config);
    gpiod_line_settings_free(settings);
    if (!request) errno = error;
    return request;
}

static inline void sgpio_request_release(sgpio_request *request) { gpiod_line_request_release(request); }
static inline int sgpio_request_fd(sgpio_request *request) { return gpiod_line_request_get_fd(request); }

/// The logical value (0 or 1) of the requested line, or -1 (errno set).
static inline int sgpio_request_value(sgpio_request *request, unsigned int offset) {
    return (int)gpiod_line_request_get_value(request, offset);
}

/// Reads up to `max` (at most SGPIO_EDGE_BATCH) pending edges from a line request fd: the
/// kernel's `gpio_v2_line_event` records. The count, or -1 (errno set: EAGAIN when none is
/// pending on a non-blocking fd, EIO on a cut record).
static inline int sgpio_read_edges(int fd, struct sgpio_edge *edges, unsigned int max) {
    struct gpio_v2_line_event events[SGPIO_EDGE_BATCH];
    if (max > SGPIO_EDGE_BATCH) max = SGPIO_EDGE_BATCH;
    ssize_t bytes = read(fd, events, max * sizeof events[0]);
    if (bytes < 0) return -1;
    if (bytes % sizeof events[0] != 0) {
        errno = EIO;
        return -1;
    }
    int count = (int)(bytes / sizeof events[0]);
    for (int i = 0; i < count; i++) {
        edges[i].timestamp_ns = events[i].timestamp_ns;
        edges[i].rising = events[i].id == GPIO_V2_LINE_EVENT_RISING_EDGE;
    }
    return count;
}

#endif

#endif
