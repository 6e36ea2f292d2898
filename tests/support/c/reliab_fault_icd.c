/*
 * A faulty Vulkan driver for the reliability fault catalogue.
 *
 * Default build: a forwarding driver. It loads the real driver named by `target=` in `<own path>.conf`
 * (found through dladdr, so each copy of this library has its own config) and passes everything through,
 * except the fault the config asks for:
 *   negotiate_version=N   after the real negotiation, report interface version N (e.g. 99: impossible)
 *   negotiate_result=R    return VkResult R from negotiation
 *   null_gipa=a,b,...     vk_icdGetInstanceProcAddr returns NULL for these names
 * -DRELIAB_NO_EXPORTS: exports no loader entry point at all.
 * -DRELIAB_NEEDS_GONE: also references reliab_gone() from libreliab_gone.so (a DT_NEEDED the tests delete).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

typedef void (*VoidFn)(void);
typedef int32_t (*NegotiateFn)(uint32_t *);
typedef VoidFn (*GipaFn)(void *, const char *);

#if defined(RELIAB_NO_EXPORTS)

EXPORT int reliab_not_a_driver = 1;

#else

#if defined(RELIAB_NEEDS_GONE)
extern int reliab_gone(void);
EXPORT int reliab_use_gone(void) { return reliab_gone(); }
#endif

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static char g_target[4096];
static char g_null[4096];
static int g_has_version, g_has_result;
static uint32_t g_version;
static int32_t g_result;
static NegotiateFn g_negotiate;
static GipaFn g_gipa, g_gpdpa;

static void load(void) {
    Dl_info info;
    if (!dladdr((void *)&load, &info) || !info.dli_fname) return;
    char path[4200];
    snprintf(path, sizeof path, "%s.conf", info.dli_fname);
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[4200];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        char *eq = strchr(line, '=');
        if (!eq) continue;
        *eq = 0;
        const char *v = eq + 1;
        if (strcmp(line, "target") == 0) snprintf(g_target, sizeof g_target, "%s", v);
        else if (strcmp(line, "null_gipa") == 0) snprintf(g_null, sizeof g_null, ",%s,", v);
        else if (strcmp(line, "negotiate_version") == 0) g_has_version = 1, g_version = (uint32_t)strtoul(v, 0, 0);
        else if (strcmp(line, "negotiate_result") == 0) g_has_result = 1, g_result = (int32_t)strtol(v, 0, 0);
    }
    fclose(f);
    void *lib = g_target[0] ? dlopen(g_target, RTLD_NOW | RTLD_LOCAL) : NULL;
    if (!lib) return;
    g_negotiate = (NegotiateFn)dlsym(lib, "vk_icdNegotiateLoaderICDInterfaceVersion");
    g_gipa = (GipaFn)dlsym(lib, "vk_icdGetInstanceProcAddr");
    g_gpdpa = (GipaFn)dlsym(lib, "vk_icdGetPhysicalDeviceProcAddr");
}

static int nulled(const char *name) {
    if (!g_null[0]) return 0;
    char key[300];
    snprintf(key, sizeof key, ",%s,", name);
    return strstr(g_null, key) != NULL;
}

EXPORT int32_t vk_icdNegotiateLoaderICDInterfaceVersion(uint32_t *pVersion) {
    pthread_once(&g_once, load);
    int32_t r = g_negotiate ? g_negotiate(pVersion) : -9;
    if (g_has_result) r = g_result;
    if (g_has_version) *pVersion = g_version;
    return r;
}

EXPORT VoidFn vk_icdGetInstanceProcAddr(void *instance, const char *name) {
    pthread_once(&g_once, load);
    if (nulled(name) || !g_gipa) return NULL;
    if (strcmp(name, "vkGetInstanceProcAddr") == 0) return (VoidFn)vk_icdGetInstanceProcAddr;
    if (strcmp(name, "vk_icdNegotiateLoaderICDInterfaceVersion") == 0) {
        return (VoidFn)vk_icdNegotiateLoaderICDInterfaceVersion;
    }
    return g_gipa(instance, name);
}

EXPORT VoidFn vk_icdGetPhysicalDeviceProcAddr(void *instance, const char *name) {
    pthread_once(&g_once, load);
    if (nulled(name) || !g_gpdpa) return NULL;
    return g_gpdpa(instance, name);
}

#endif
