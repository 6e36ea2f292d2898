/*
 * Shared plumbing of the vkdeno mock driver and mock layer: the run-time
 * configuration text, the call log and small string helpers.
 *
 * Configuration is line based ("key=value", "[section]", "#" comments). It is
 * read from "<library path>.conf" the first time the library is used, or
 * given as text through the library's exported configure function. Config
 * files are never named *.json because discovery scans folders for *.json.
 *
 * Each log line is written with one write() on a file opened with O_APPEND, so
 * several mocks (drivers and layers, several copies) share one ordered log.
 */
#ifndef VKDENO_MOCK_COMMON_H
#define VKDENO_MOCK_COMMON_H

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MOCK_EXPORT __attribute__((visibility("default")))
#define MOCK_MAX_NAMES 64
#define MOCK_NAME_SIZE 256
#define MOCK_LINE_SIZE 16384

typedef struct MockLog {
    pthread_mutex_t mutex;
    char name[128];
    int fd;
    char *buf;
    size_t len;
    size_t cap;
} MockLog;

static inline inline void mock_log_open(MockLog *log, const char *path) {
    if (log->fd > 0) close(log->fd);
    log->fd = -1;
    if (path && path[0]) log->fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
}

static inline inline void mock_log_clear(MockLog *log) {
    pthread_mutex_lock(&log->mutex);
    log->len = 0;
    if (log->buf) log->buf[0] = '\0';
    pthread_mutex_unlock(&log->mutex);
}

static inline inline void mock_log_free(MockLog *log) {
    if (log->fd > 0) close(log->fd);
    log->fd = -1;
    free(log->buf);
    log->buf = NULL;
    log->len = log->cap = 0;
}

static inline inline const char *mock_log_text(MockLog *log) { return log->buf ? log->buf : ""; }

/* Appends "<name> <formatted>\n" to the in-memory log and, as one write, to the log file. */
__attribute__((format(printf, 2, 3))) static inline void mock_log(MockLog *log, const char *fmt, ...) {
    char line[MOCK_LINE_SIZE];
    int head = snprintf(line, sizeof line, "%s ", log->name);
    va_list ap;
    va_start(ap, fmt);
    int body = vsnprintf(line + head, sizeof line - (size_t)head - 1, fmt, ap);
    va_end(ap);
    size_t n = (size_t)head + (size_t)body;
    if (n > sizeof line - 2) n = sizeof line - 2;
    line[n++] = '\n';
    line[n] = '\0';
    pthread_mutex_lock(&log->mutex);
    if (log->len + n + 1 > log->cap) {
        size_t cap = log->cap ? log->cap * 2 : 65536;
        while (cap < log->len + n + 1) cap *= 2;
        char *grown = realloc(log->buf, cap);
        if (grown) {
            log->buf = grown;
            log->cap = cap;
        }
    }
    if (log->len + n + 1 <= log->cap) {
        memcpy(log->buf + log->len, line, n + 1);
        log->len += n;
    }
    if (log->fd > 0) {
        ssize_t w = write(log->fd, line, n);
        (void)w;
    }
    pthread_mutex_unlock(&log->mutex);
}

/* Reads "<path of the library holding `symbol`>.conf"; NULL when absent. Caller frees. */
static inline inline char *mock_read_sidecar_config(const void *symbol) {
    Dl_info info;
    if (!dladdr(symbol, &info) || !info.dli_fname) return NULL;
    char path[4096];
    snprintf(path, sizeof path, "%s.conf", info.dli_fname);
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, len = 0;
    char *text = malloc(cap);
    size_t got;
    while (text && (got = fread(text + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (len + 1 >= cap) {
            char *grown = realloc(text, cap * 2);
            if (!grown) {
                free(text);
                text = NULL;
                break;
            }
            text = grown;
            cap *= 2;
        }
    }
    fclose(f);
    if (text) text[len] = '\0';
    return text;
}

typedef void (*MockConfigSection)(void *ctx, const char *section);
typedef void (*MockConfigEntry)(void *ctx, const char *key, const char *value);

static inline inline char *mock_trim(char *s) {
    while (*s == ' ' || *s == '\t' || *s == '\r') s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) s[--n] = '\0';
    return s;
}

static inline inline void mock_parse_config(const char *text, void *ctx, MockConfigSection on_section, MockConfigEntry on_entry) {
    char *copy = strdup(text ? text : "");
    if (!copy) return;
    char *save = NULL;
    for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *t = mock_trim(line);
        if (!t[0] || t[0] == '#') continue;
        size_t n = strlen(t);
        if (t[0] == '[' && t[n - 1] == ']') {
            t[n - 1] = '\0';
            on_section(ctx, mock_trim(t + 1));
            continue;
        }
        char *eq = strchr(t, '=');
        if (!eq) continue;
        *eq = '\0';
        on_entry(ctx, mock_trim(t), mock_trim(eq + 1));
    }
    free(copy);
}

static inline uint32_t mock_parse_u32(const char *s) { return (uint32_t)strtoul(s, NULL, 0); }

static inline int32_t mock_parse_i32(const char *s) { return (int32_t)strtol(s, NULL, 0); }

/* "1.3.0" or "1.3" -> VK_MAKE_API_VERSION(0, 1, 3, 0); a plain number is taken as packed. */
static inline uint32_t mock_parse_version(const char *s) {
    unsigned a = 0, b = 0, c = 0;
    if (!strchr(s, '.')) return mock_parse_u32(s);
    sscanf(s, "%u.%u.%u", &a, &b, &c);
    return (a << 22) | (b << 12) | c;
}

static inline inline void mock_format_version(char *out, size_t cap, uint32_t v) {
    snprintf(out, cap, "%u.%u.%u", (v >> 22) & 0x7fu, (v >> 12) & 0x3ffu, v & 0xfffu);
}

typedef struct MockName {
    char name[MOCK_NAME_SIZE];
    uint32_t version;
} MockName;

/* "A:2,B" -> {A,2},{B,1}; returns the count. */
static inline uint32_t mock_parse_names(const char *s, MockName *out, uint32_t max) {
    uint32_t n = 0;
    char *copy = strdup(s);
    if (!copy) return 0;
    char *save = NULL;
    for (char *item = strtok_r(copy, ",", &save); item && n < max; item = strtok_r(NULL, ",", &save)) {
        char *t = mock_trim(item);
        if (!t[0]) continue;
        char *colon = strchr(t, ':');
        out[n].version = 1;
        if (colon) {
            *colon = '\0';
            out[n].version = mock_parse_u32(colon + 1);
        }
        snprintf(out[n].name, sizeof out[n].name, "%s", t);
        n++;
    }
    free(copy);
    return n;
}

static inline inline int mock_has_name(const MockName *names, uint32_t count, const char *name) {
    for (uint32_t i = 0; i < count; i++)
        if (strcmp(names[i].name, name) == 0) return 1;
    return 0;
}

/* Joins C strings with ","; an empty list gives "". */
static inline inline void mock_join(char *out, size_t cap, uint32_t count, const char *const *names) {
    size_t len = 0;
    out[0] = '\0';
    for (uint32_t i = 0; i < count && len + 1 < cap; i++) {
        int w = snprintf(out + len, cap - len, "%s%s", i ? "," : "", names[i] ? names[i] : "(null)");
        if (w < 0) break;
        len += (size_t)w;
    }
}

/* Lists the sType values of a pNext chain as "a,b,c". */
static inline inline void mock_describe_pnext(char *out, size_t cap, const void *pnext) {
    size_t len = 0;
    out[0] = '\0';
    int guard = 0;
    for (const VkBaseInStructure *s = pnext; s && guard < 64 && len + 1 < cap; s = s->pNext, guard++) {
        int w = snprintf(out + len, cap - len, "%s%d", guard ? "," : "", (int)s->sType);
        if (w < 0) break;
        len += (size_t)w;
    }
}

/* Copies an enumeration result the Vulkan way: count query, VK_INCOMPLETE when short. */
static inline inline VkResult mock_fill(uint32_t *pCount, void *out, const void *src, uint32_t have, size_t elem) {
    if (!out) {
        *pCount = have;
        return VK_SUCCESS;
    }
    uint32_t n = *pCount < have ? *pCount : have;
    if (n) memcpy(out, src, (size_t)n * elem);
    *pCount = n;
    return n < have ? VK_INCOMPLETE : VK_SUCCESS;
}

static inline inline VkResult mock_fill_extensions(uint32_t *pCount, VkExtensionProperties *out, const MockName *names,
                                     uint32_t have) {
    if (!out) {
        *pCount = have;
        return VK_SUCCESS;
    }
    uint32_t n = *pCount < have ? *pCount : have;
    for (uint32_t i = 0; i < n; i++) {
        memset(&out[i], 0, sizeof out[i]);
        snprintf(out[i].extensionName, sizeof out[i].extensionName, "%s", names[i].name);
        out[i].specVersion = names[i].version;
    }
    *pCount = n;
    return n < have ? VK_INCOMPLETE : VK_SUCCESS;
}

#endif
