/*
 * vkdeno mock Vulkan driver (ICD), configured at run time.
 *
 * One source, several libraries: what a driver exports is fixed at link time,
 * so the build compiles this file once per variant (see MOCK_VARIANT_* below)
 * and the test fixture picks the variant from the configured interface:
 *   v0             exports vkGetInstanceProcAddr, vkCreateInstance,
 *                  vkEnumerateInstanceExtensionProperties (interface 0)
 *   v1             exports vk_icdGetInstanceProcAddr (interface 1)
 *   export         exports vk_icdNegotiateLoaderICDInterfaceVersion, vk_icdGetInstanceProcAddr,
 *                  vk_icdGetPhysicalDeviceProcAddr, vk_icdEnumerateAdapterPhysicalDevices (2-7)
 *   export_nophys  exports vk_icdNegotiateLoaderICDInterfaceVersion, vk_icdGetInstanceProcAddr (2-7)
 *   v7             exports vk_icdGetInstanceProcAddr only; negotiation and the rest through it
 * Every variant also exports the mock_icd_* control functions.
 *
 * Configuration keys (top level, before any [device]):
 *   name, log, interface, min_interface, negotiate_result, negotiate_answer, api_version,
 *   enumerate_instance_version, instance_extensions, magic, create_instance_result,
 *   enumerate_physical_devices_result, groups_result, create_device_result, groups_supported, groups,
 *   own_surfaces, surfaces_below_3, physical_device_proc_addr, enumerate_adapter, unknown_functions,
 *   unknown_base, check_api_version, strict_extensions, present_support, log_proc_addr
 * [device] sections: name, type, vendor_id, device_id, api_version, driver_version, pci,
 *   driver_id, driver_name, driver_info, uuid, extensions, queue_families, memory_types, memory_heaps
 * With no configuration at all the driver shows one integrated GPU.
 */
#define _GNU_SOURCE
#define VK_NO_PROTOTYPES
#include <vulkan/vulkan_core.h>
#include <vulkan/vk_icd.h>

#include "mock_common.h"

#if !defined(MOCK_VARIANT_V0) && !defined(MOCK_VARIANT_V1) && !defined(MOCK_VARIANT_EXPORT) && \
    !defined(MOCK_VARIANT_EXPORT_NOPHYS) && !defined(MOCK_VARIANT_V7)
#define MOCK_VARIANT_V7
#endif

#if defined(MOCK_VARIANT_V0)
#define MOCK_VARIANT_NAME "v0"
#elif defined(MOCK_VARIANT_V1)
#define MOCK_VARIANT_NAME "v1"
#elif defined(MOCK_VARIANT_EXPORT)
#define MOCK_VARIANT_NAME "export"
#elif defined(MOCK_VARIANT_EXPORT_NOPHYS)
#define MOCK_VARIANT_NAME "export_nophys"
#else
#define MOCK_VARIANT_NAME "v7"
#endif

#define MAX_DEVICES 16
#define MAX_QUEUE_FAMILIES 8
#define MAX_GROUP_SIZE 8

/* ----------------------------------------------------------------------------------------- config */

typedef struct DeviceConfig {
    char name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
    VkPhysicalDeviceType type;
    uint32_t vendor_id, device_id, api_version, driver_version;
    int has_pci;
    uint32_t pci_domain, pci_bus, pci_device, pci_function;
    uint32_t driver_id;
    char driver_name[VK_MAX_DRIVER_NAME_SIZE];
    char driver_info[VK_MAX_DRIVER_INFO_SIZE];
    uint8_t uuid[VK_UUID_SIZE];
    MockName extensions[MOCK_MAX_NAMES];
    uint32_t extension_count;
    VkQueueFamilyProperties queue_families[MAX_QUEUE_FAMILIES];
    uint32_t queue_family_count;
    VkMemoryType memory_types[VK_MAX_MEMORY_TYPES];
    uint32_t memory_type_count;
    VkMemoryHeap memory_heaps[VK_MAX_MEMORY_HEAPS];
    uint32_t memory_heap_count;
} DeviceConfig;

typedef struct Config {
    uint32_t interface_version, min_interface;
    int32_t negotiate_result;
    /* when nonzero: the version negotiation reports, whatever was offered (a driver above the offer) */
    uint32_t negotiate_answer;
    uint32_t api_version;
    int enumerate_instance_version;
    MockName instance_extensions[MOCK_MAX_NAMES];
    uint32_t instance_extension_count;
    int magic;
    int32_t create_instance_result, enumerate_physical_devices_result, create_device_result;
    int32_t groups_result; /* vkEnumeratePhysicalDeviceGroups' result when has_groups_result */
    int has_groups_result;
    int groups_supported;
    uint32_t group_of[MAX_DEVICES]; /* group index of each device */
    int has_groups;
    int own_surfaces, physical_device_proc_addr, enumerate_adapter, unknown_functions;
    /* hands out its surface create commands below interface 3 too (an old driver with WSI entry points) */
    int surfaces_below_3;
    uint32_t unknown_base;
    int check_api_version, strict_extensions, log_proc_addr;
    uint32_t present_support;
    DeviceConfig devices[MAX_DEVICES];
    uint32_t device_count;
} Config;

static Config g_config;
static MockLog g_log = {.mutex = PTHREAD_MUTEX_INITIALIZER, .name = "mock_icd", .fd = -1};
static int g_configured;
static uint32_t g_negotiated; /* 0 until negotiation; legacy loaders never negotiate */
static int g_negotiate_called;
static pthread_mutex_t g_config_mutex = PTHREAD_MUTEX_INITIALIZER;

static const char *const DEFAULT_INSTANCE_EXTENSIONS =
    "VK_KHR_surface:25,VK_KHR_xcb_surface:6,VK_KHR_xlib_surface:6,VK_KHR_wayland_surface:6,"
    "VK_EXT_headless_surface:1,VK_KHR_display:23,VK_KHR_get_physical_device_properties2:2";

static void device_defaults(DeviceConfig *d, uint32_t index) {
    memset(d, 0, sizeof *d);
    snprintf(d->name, sizeof d->name, "Mock Device %u", index);
    d->type = VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU;
    d->vendor_id = 0xC0DE;
    d->device_id = 0x1000 + index;
    d->api_version = g_config.api_version;
    d->driver_version = VK_MAKE_API_VERSION(0, 1, 0, 0);
    d->driver_id = VK_DRIVER_ID_MESA_LLVMPIPE;
    snprintf(d->driver_name, sizeof d->driver_name, "mock_icd");
    snprintf(d->driver_info, sizeof d->driver_info, "vkdeno mock driver");
    for (uint32_t i = 0; i < VK_UUID_SIZE; i++) d->uuid[i] = (uint8_t)(0xA0 + i);
    d->uuid[VK_UUID_SIZE - 1] = (uint8_t)index;
    d->extension_count = mock_parse_names("VK_KHR_swapchain:70", d->extensions, MOCK_MAX_NAMES);
    d->queue_families[0] = (VkQueueFamilyProperties){
        .queueFlags = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT | VK_QUEUE_TRANSFER_BIT,
        .queueCount = 2,
        .timestampValidBits = 64,
        .minImageTransferGranularity = {1, 1, 1},
    };
    d->queue_family_count = 1;
    d->memory_heaps[0] = (VkMemoryHeap){.size = 256ull << 20, .flags = VK_MEMORY_HEAP_DEVICE_LOCAL_BIT};
    d->memory_heaps[1] = (VkMemoryHeap){.size = 1ull << 30, .flags = 0};
    d->memory_heap_count = 2;
    d->memory_types[0] = (VkMemoryType){.propertyFlags = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, .heapIndex = 0};
    d->memory_types[1] = (VkMemoryType){
        .propertyFlags = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
        .heapIndex = 1,
    };
    d->memory_type_count = 2;
}

static void config_defaults(void) {
    memset(&g_config, 0, sizeof g_config);
    snprintf(g_log.name, sizeof g_log.name, "mock_icd");
    g_config.interface_version = 7;
    g_config.api_version = VK_API_VERSION_1_3;
    g_config.enumerate_instance_version = 1;
    g_config.instance_extension_count =
        mock_parse_names(DEFAULT_INSTANCE_EXTENSIONS, g_config.instance_extensions, MOCK_MAX_NAMES);
    g_config.magic = 1;
    g_config.negotiate_result = VK_SUCCESS;
    g_config.groups_supported = 1;
    g_config.own_surfaces = 1;
    g_config.physical_device_proc_addr = 1;
    g_config.unknown_functions = 1;
    g_config.unknown_base = 0x10000;
    g_config.check_api_version = 1;
    g_config.strict_extensions = 1;
    g_config.present_support = 1;
}

static VkPhysicalDeviceType parse_device_type(const char *v) {
    if (strcmp(v, "integrated") == 0) return VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU;
    if (strcmp(v, "discrete") == 0) return VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU;
    if (strcmp(v, "virtual") == 0) return VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU;
    if (strcmp(v, "cpu") == 0) return VK_PHYSICAL_DEVICE_TYPE_CPU;
    if (strcmp(v, "other") == 0) return VK_PHYSICAL_DEVICE_TYPE_OTHER;
    return (VkPhysicalDeviceType)mock_parse_u32(v);
}

/* "flags:count,flags:count" */
static uint32_t parse_queue_families(const char *v, VkQueueFamilyProperties *out) {
    MockName items[MAX_QUEUE_FAMILIES];
    uint32_t n = mock_parse_names(v, items, MAX_QUEUE_FAMILIES);
    for (uint32_t i = 0; i < n; i++) {
        out[i] = (VkQueueFamilyProperties){
            .queueFlags = mock_parse_u32(items[i].name),
            .queueCount = items[i].version,
            .timestampValidBits = 64,
            .minImageTransferGranularity = {1, 1, 1},
        };
    }
    return n;
}

typedef struct ParseState {
    DeviceConfig *device;
} ParseState;

static void on_section(void *ctx, const char *section) {
    ParseState *st = ctx;
    st->device = NULL;
    if (strcmp(section, "device") == 0 && g_config.device_count < MAX_DEVICES) {
        st->device = &g_config.devices[g_config.device_count];
        device_defaults(st->device, g_config.device_count);
        g_config.device_count++;
    }
}

static void on_device_entry(DeviceConfig *d, const char *k, const char *v) {
    if (strcmp(k, "name") == 0) snprintf(d->name, sizeof d->name, "%s", v);
    else if (strcmp(k, "type") == 0) d->type = parse_device_type(v);
    else if (strcmp(k, "vendor_id") == 0) d->vendor_id = mock_parse_u32(v);
    else if (strcmp(k, "device_id") == 0) d->device_id = mock_parse_u32(v);
    else if (strcmp(k, "api_version") == 0) d->api_version = mock_parse_version(v);
    else if (strcmp(k, "driver_version") == 0) d->driver_version = mock_parse_version(v);
    else if (strcmp(k, "driver_id") == 0) d->driver_id = mock_parse_u32(v);
    else if (strcmp(k, "driver_name") == 0) snprintf(d->driver_name, sizeof d->driver_name, "%s", v);
    else if (strcmp(k, "driver_info") == 0) snprintf(d->driver_info, sizeof d->driver_info, "%s", v);
    else if (strcmp(k, "extensions") == 0) d->extension_count = mock_parse_names(v, d->extensions, MOCK_MAX_NAMES);
    else if (strcmp(k, "queue_families") == 0) d->queue_family_count = parse_queue_families(v, d->queue_families);
    else if (strcmp(k, "pci") == 0) {
        /* domain:bus:device.function, hex like lspci */
        unsigned dom = 0, bus = 0, dev = 0, fn = 0;
        if (sscanf(v, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) == 4) {
            d->has_pci = 1;
            d->pci_domain = dom, d->pci_bus = bus, d->pci_device = dev, d->pci_function = fn;
        }
    } else if (strcmp(k, "uuid") == 0) {
        for (uint32_t i = 0; i < VK_UUID_SIZE && v[2 * i] && v[2 * i + 1]; i++) {
            char hex[3] = {v[2 * i], v[2 * i + 1], 0};
            d->uuid[i] = (uint8_t)strtoul(hex, NULL, 16);
        }
    } else if (strcmp(k, "memory_types") == 0) {
        /* "propertyFlags:heapIndex,..." (both always given) */
        MockName items[VK_MAX_MEMORY_TYPES];
        d->memory_type_count = mock_parse_names(v, items, VK_MAX_MEMORY_TYPES);
        for (uint32_t i = 0; i < d->memory_type_count; i++) {
            d->memory_types[i].propertyFlags = mock_parse_u32(items[i].name);
            d->memory_types[i].heapIndex = items[i].version;
        }
    } else if (strcmp(k, "memory_heaps") == 0) {
        /* "sizeInMiB:flags,..." (both always given) */
        MockName items[VK_MAX_MEMORY_HEAPS];
        d->memory_heap_count = mock_parse_names(v, items, VK_MAX_MEMORY_HEAPS);
        for (uint32_t i = 0; i < d->memory_heap_count; i++) {
            d->memory_heaps[i].size = (VkDeviceSize)strtoull(items[i].name, NULL, 0) << 20;
            d->memory_heaps[i].flags = items[i].version;
        }
    }
}

static void on_entry(void *ctx, const char *k, const char *v) {
    ParseState *st = ctx;
    if (st->device) {
        on_device_entry(st->device, k, v);
        return;
    }
    if (strcmp(k, "name") == 0) snprintf(g_log.name, sizeof g_log.name, "%s", v);
    else if (strcmp(k, "log") == 0) mock_log_open(&g_log, v);
    else if (strcmp(k, "interface") == 0) g_config.interface_version = mock_parse_u32(v);
    else if (strcmp(k, "min_interface") == 0) g_config.min_interface = mock_parse_u32(v);
    else if (strcmp(k, "negotiate_result") == 0) g_config.negotiate_result = mock_parse_i32(v);
    else if (strcmp(k, "negotiate_answer") == 0) g_config.negotiate_answer = mock_parse_u32(v);
    else if (strcmp(k, "api_version") == 0) g_config.api_version = mock_parse_version(v);
    else if (strcmp(k, "enumerate_instance_version") == 0) g_config.enumerate_instance_version = mock_parse_i32(v);
    else if (strcmp(k, "instance_extensions") == 0)
        g_config.instance_extension_count = mock_parse_names(v, g_config.instance_extensions, MOCK_MAX_NAMES);
    else if (strcmp(k, "magic") == 0) g_config.magic = mock_parse_i32(v);
    else if (strcmp(k, "create_instance_result") == 0) g_config.create_instance_result = mock_parse_i32(v);
    else if (strcmp(k, "enumerate_physical_devices_result") == 0)
        g_config.enumerate_physical_devices_result = mock_parse_i32(v);
    else if (strcmp(k, "create_device_result") == 0) g_config.create_device_result = mock_parse_i32(v);
    else if (strcmp(k, "groups_result") == 0) {
        g_config.groups_result = mock_parse_i32(v);
        g_config.has_groups_result = 1;
    }
    else if (strcmp(k, "groups_supported") == 0) g_config.groups_supported = mock_parse_i32(v);
    else if (strcmp(k, "groups") == 0) {
        /* "0+1,2": devices 0 and 1 form group 0, device 2 group 1 */
        MockName items[MAX_DEVICES];
        uint32_t n = mock_parse_names(v, items, MAX_DEVICES);
        for (uint32_t i = 0; i < MAX_DEVICES; i++) g_config.group_of[i] = UINT32_MAX;
        for (uint32_t g = 0; g < n; g++) {
            char *save = NULL;
            for (char *m = strtok_r(items[g].name, "+", &save); m; m = strtok_r(NULL, "+", &save)) {
                uint32_t idx = mock_parse_u32(m);
                if (idx < MAX_DEVICES) g_config.group_of[idx] = g;
            }
        }
        g_config.has_groups = 1;
    } else if (strcmp(k, "own_surfaces") == 0) g_config.own_surfaces = mock_parse_i32(v);
    else if (strcmp(k, "surfaces_below_3") == 0) g_config.surfaces_below_3 = mock_parse_i32(v);
    else if (strcmp(k, "physical_device_proc_addr") == 0) g_config.physical_device_proc_addr = mock_parse_i32(v);
    else if (strcmp(k, "enumerate_adapter") == 0) g_config.enumerate_adapter = mock_parse_i32(v);
    else if (strcmp(k, "unknown_functions") == 0) g_config.unknown_functions = mock_parse_i32(v);
    else if (strcmp(k, "unknown_base") == 0) g_config.unknown_base = mock_parse_u32(v);
    else if (strcmp(k, "check_api_version") == 0) g_config.check_api_version = mock_parse_i32(v);
    else if (strcmp(k, "strict_extensions") == 0) g_config.strict_extensions = mock_parse_i32(v);
    else if (strcmp(k, "present_support") == 0) g_config.present_support = mock_parse_u32(v);
    else if (strcmp(k, "log_proc_addr") == 0) g_config.log_proc_addr = mock_parse_i32(v);
}

static void apply_config(const char *text) {
    config_defaults();
    mock_log_open(&g_log, NULL);
    if (!text) {
        device_defaults(&g_config.devices[0], 0);
        g_config.device_count = 1;
        return;
    }
    ParseState st = {0};
    mock_parse_config(text, &st, on_section, on_entry);
    /* a real driver advertises VK_EXT_pci_bus_info when it knows the bus address */
    for (uint32_t i = 0; i < g_config.device_count; i++) {
        DeviceConfig *d = &g_config.devices[i];
        if (d->has_pci && !mock_has_name(d->extensions, d->extension_count, "VK_EXT_pci_bus_info") &&
            d->extension_count < MOCK_MAX_NAMES) {
            snprintf(d->extensions[d->extension_count].name, MOCK_NAME_SIZE, "VK_EXT_pci_bus_info");
            d->extensions[d->extension_count++].version = 2;
        }
    }
}

static void ensure_config(void);

/* Replaces the configuration with `text` (the same format as the .conf file beside the library). */
MOCK_EXPORT void mock_icd_configure(const char *text) {
    pthread_mutex_lock(&g_config_mutex);
    apply_config(text);
    g_configured = 1;
    pthread_mutex_unlock(&g_config_mutex);
}

static void ensure_config(void) {
    pthread_mutex_lock(&g_config_mutex);
    if (!g_configured) {
        char *text = mock_read_sidecar_config((const void *)&mock_icd_configure);
        apply_config(text);
        free(text);
        g_configured = 1;
    }
    pthread_mutex_unlock(&g_config_mutex);
}

/* The in-memory call log of this library copy, one line per call. */
MOCK_EXPORT const char *mock_icd_log(void) {
    ensure_config();
    return mock_log_text(&g_log);
}

MOCK_EXPORT void mock_icd_log_clear(void) { mock_log_clear(&g_log); }

/* The variant this library was built as ("v0", "v1", "export", "export_nophys", "v7"). */
MOCK_EXPORT const char *mock_icd_variant(void) { return MOCK_VARIANT_NAME; }

/* The interface version negotiated (0 when the loader never negotiated). */
MOCK_EXPORT uint32_t mock_icd_negotiated_version(void) { return g_negotiated; }

static void free_surfaces(void);

/* Surfaces an application never destroyed would otherwise be lost at dlclose. */
__attribute__((destructor)) static void mock_icd_unload(void) {
    free_surfaces();
    mock_log_free(&g_log);
}

/* ----------------------------------------------------------------------------------------- objects */

typedef struct MockInstance MockInstance;

typedef struct MockPhysicalDevice {
    VK_LOADER_DATA loader;
    MockInstance *instance;
    uint32_t index;
} MockPhysicalDevice;

struct MockInstance {
    VK_LOADER_DATA loader;
    uint32_t api_version;
    MockPhysicalDevice physical_devices[MAX_DEVICES];
    uint32_t physical_device_count;
};

typedef struct MockQueue {
    VK_LOADER_DATA loader;
    uint32_t family, index;
} MockQueue;

typedef struct MockCommandBuffer MockCommandBuffer;

typedef struct MockCommandPool {
    uint64_t id;
    uint32_t family;
    MockCommandBuffer *buffers;
    struct MockCommandPool *next;
} MockCommandPool;

struct MockCommandBuffer {
    VK_LOADER_DATA loader;
    uint64_t id;
    MockCommandPool *pool;
    MockCommandBuffer *next;
};

typedef struct MockDevice {
    VK_LOADER_DATA loader;
    MockPhysicalDevice *physical_device;
    MockQueue *queues;
    uint32_t queue_count;
    MockCommandPool *pools;
} MockDevice;

typedef enum SurfaceKind { SURFACE_XCB, SURFACE_XLIB, SURFACE_WAYLAND, SURFACE_HEADLESS, SURFACE_DISPLAY } SurfaceKind;

static const char *const SURFACE_KIND_NAMES[] = {"xcb", "xlib", "wayland", "headless", "display"};

typedef struct MockSurface {
    uint64_t id;
    SurfaceKind kind;
    struct MockSurface *next;
} MockSurface;

typedef struct MockSwapchain {
    uint64_t id;
    VkSurfaceKHR surface;
} MockSwapchain;

static MockSurface *g_surfaces;
static uint64_t g_next_id = 1;
static pthread_mutex_t g_objects_mutex = PTHREAD_MUTEX_INITIALIZER;

static uint64_t next_id(void) {
    pthread_mutex_lock(&g_objects_mutex);
    uint64_t id = g_next_id++;
    pthread_mutex_unlock(&g_objects_mutex);
    return id;
}

static void set_magic(void *object) {
    if (g_config.magic) set_loader_magic_value(object);
    else ((VK_LOADER_DATA *)object)->loaderMagic = 0;
}

static DeviceConfig *device_config(VkPhysicalDevice pd) {
    return &g_config.devices[((MockPhysicalDevice *)pd)->index];
}

static void version_text(char *out, size_t cap, uint32_t v) { mock_format_version(out, cap, v); }

/* ----------------------------------------------------------------------------------------- surfaces */

static void free_surfaces(void) {
    pthread_mutex_lock(&g_objects_mutex);
    while (g_surfaces) {
        MockSurface *next = g_surfaces->next;
        free(g_surfaces);
        g_surfaces = next;
    }
    pthread_mutex_unlock(&g_objects_mutex);
}

static MockSurface *find_own_surface(VkSurfaceKHR surface) {
    pthread_mutex_lock(&g_objects_mutex);
    MockSurface *s = g_surfaces;
    while (s && (uint64_t)(uintptr_t)s != (uint64_t)surface) s = s->next;
    pthread_mutex_unlock(&g_objects_mutex);
    return s;
}

/* Mirrors of the platform structs so the mock builds without X11/XCB/Wayland headers. */
typedef struct {
    VkIcdSurfaceBase base;
    void *connection;
    uint32_t window;
} MirrorIcdSurfaceXcb;
typedef struct {
    VkIcdSurfaceBase base;
    void *dpy;
    unsigned long window;
} MirrorIcdSurfaceXlib;
typedef struct {
    VkIcdSurfaceBase base;
    void *display;
    void *surface;
} MirrorIcdSurfaceWayland;

/*
 * Describes what a surface handle is to this driver: one it created itself
 * ("own:<id>:<kind>"), or the loader's VkIcdSurface* container, whose platform
 * fields a driver below interface 3 reads ("icd:<platform>:<fields>").
 */
static void describe_surface(char *out, size_t cap, VkSurfaceKHR surface) {
    if (surface == VK_NULL_HANDLE) {
        snprintf(out, cap, "null");
        return;
    }
    MockSurface *own = find_own_surface(surface);
    if (own) {
        snprintf(out, cap, "own:%llu:%s", (unsigned long long)own->id, SURFACE_KIND_NAMES[own->kind]);
        return;
    }
    const VkIcdSurfaceBase *base = (const VkIcdSurfaceBase *)(uintptr_t)surface;
    switch (base->platform) {
    case VK_ICD_WSI_PLATFORM_XCB: {
        const MirrorIcdSurfaceXcb *s = (const void *)base;
        snprintf(out, cap, "icd:xcb:connection=%p:window=0x%x", s->connection, s->window);
        break;
    }
    case VK_ICD_WSI_PLATFORM_XLIB: {
        const MirrorIcdSurfaceXlib *s = (const void *)base;
        snprintf(out, cap, "icd:xlib:dpy=%p:window=0x%lx", s->dpy, s->window);
        break;
    }
    case VK_ICD_WSI_PLATFORM_WAYLAND: {
        const MirrorIcdSurfaceWayland *s = (const void *)base;
        snprintf(out, cap, "icd:wayland:display=%p:surface=%p", s->display, s->surface);
        break;
    }
    case VK_ICD_WSI_PLATFORM_HEADLESS:
        snprintf(out, cap, "icd:headless");
        break;
    case VK_ICD_WSI_PLATFORM_DISPLAY: {
        const VkIcdSurfaceDisplay *s = (const void *)base;
        snprintf(out, cap, "icd:display:plane=%u:stack=%u:extent=%ux%u", s->planeIndex, s->planeStackIndex,
                 s->imageExtent.width, s->imageExtent.height);
        break;
    }
    default:
        snprintf(out, cap, "icd:platform%d", (int)base->platform);
    }
}

static VkResult create_surface(VkInstance instance, SurfaceKind kind, VkSurfaceKHR *pSurface, const char *fn,
                               const char *fields) {
    MockSurface *s = calloc(1, sizeof *s);
    if (!s) return VK_ERROR_OUT_OF_HOST_MEMORY;
    s->id = next_id();
    s->kind = kind;
    pthread_mutex_lock(&g_objects_mutex);
    s->next = g_surfaces;
    g_surfaces = s;
    pthread_mutex_unlock(&g_objects_mutex);
    *pSurface = (VkSurfaceKHR)(uintptr_t)s;
    mock_log(&g_log, "%s instance=%p surface=0x%llx id=%llu %s", fn, (void *)instance,
             (unsigned long long)*pSurface, (unsigned long long)s->id, fields);
    return VK_SUCCESS;
}

typedef struct {
    VkStructureType sType;
    const void *pNext;
    VkFlags flags;
    void *connection;
    uint32_t window;
} MirrorXcbSurfaceCreateInfo;
typedef struct {
    VkStructureType sType;
    const void *pNext;
    VkFlags flags;
    void *dpy;
    unsigned long window;
} MirrorXlibSurfaceCreateInfo;
typedef struct {
    VkStructureType sType;
    const void *pNext;
    VkFlags flags;
    void *display;
    void *surface;
} MirrorWaylandSurfaceCreateInfo;

static VkResult VKAPI_CALL mock_CreateXcbSurfaceKHR(VkInstance instance, const MirrorXcbSurfaceCreateInfo *ci,
                                                    const VkAllocationCallbacks *a, VkSurfaceKHR *pSurface) {
    char fields[128];
    snprintf(fields, sizeof fields, "connection=%p window=0x%x", ci->connection, ci->window);
    return create_surface(instance, SURFACE_XCB, pSurface, "vkCreateXcbSurfaceKHR", fields);
}

static VkResult VKAPI_CALL mock_CreateXlibSurfaceKHR(VkInstance instance, const MirrorXlibSurfaceCreateInfo *ci,
                                                     const VkAllocationCallbacks *a, VkSurfaceKHR *pSurface) {
    char fields[128];
    snprintf(fields, sizeof fields, "dpy=%p window=0x%lx", ci->dpy, ci->window);
    return create_surface(instance, SURFACE_XLIB, pSurface, "vkCreateXlibSurfaceKHR", fields);
}

static VkResult VKAPI_CALL mock_CreateWaylandSurfaceKHR(VkInstance instance,
                                                        const MirrorWaylandSurfaceCreateInfo *ci,
                                                        const VkAllocationCallbacks *a, VkSurfaceKHR *pSurface) {
    char fields[128];
    snprintf(fields, sizeof fields, "display=%p wl_surface=%p", ci->display, ci->surface);
    return create_surface(instance, SURFACE_WAYLAND, pSurface, "vkCreateWaylandSurfaceKHR", fields);
}

static VkResult VKAPI_CALL mock_CreateHeadlessSurfaceEXT(VkInstance instance,
                                                         const VkHeadlessSurfaceCreateInfoEXT *ci,
                                                         const VkAllocationCallbacks *a, VkSurfaceKHR *pSurface) {
    return create_surface(instance, SURFACE_HEADLESS, pSurface, "vkCreateHeadlessSurfaceEXT", "");
}

static VkResult VKAPI_CALL mock_CreateDisplayPlaneSurfaceKHR(VkInstance instance,
                                                             const VkDisplaySurfaceCreateInfoKHR *ci,
                                                             const VkAllocationCallbacks *a,
                                                             VkSurfaceKHR *pSurface) {
    char fields[128];
    snprintf(fields, sizeof fields, "plane=%u stack=%u extent=%ux%u", ci->planeIndex, ci->planeStackIndex,
             ci->imageExtent.width, ci->imageExtent.height);
    return create_surface(instance, SURFACE_DISPLAY, pSurface, "vkCreateDisplayPlaneSurfaceKHR", fields);
}

static void VKAPI_CALL mock_DestroySurfaceKHR(VkInstance instance, VkSurfaceKHR surface,
                                              const VkAllocationCallbacks *a) {
    char desc[256];
    describe_surface(desc, sizeof desc, surface);
    mock_log(&g_log, "vkDestroySurfaceKHR instance=%p surface=0x%llx kind=%s", (void *)instance,
             (unsigned long long)surface, desc);
    pthread_mutex_lock(&g_objects_mutex);
    for (MockSurface **p = &g_surfaces; *p; p = &(*p)->next) {
        if ((uint64_t)(uintptr_t)*p == (uint64_t)surface) {
            MockSurface *dead = *p;
            *p = dead->next;
            free(dead);
            break;
        }
    }
    pthread_mutex_unlock(&g_objects_mutex);
}

static VkResult VKAPI_CALL mock_GetPhysicalDeviceSurfaceSupportKHR(VkPhysicalDevice pd, uint32_t family,
                                                                   VkSurfaceKHR surface, VkBool32 *pSupported) {
    char desc[256];
    describe_surface(desc, sizeof desc, surface);
    mock_log(&g_log, "vkGetPhysicalDeviceSurfaceSupportKHR physicalDevice=%p family=%u surface=0x%llx kind=%s",
             (void *)pd, family, (unsigned long long)surface, desc);
    *pSupported = g_config.present_support ? VK_TRUE : VK_FALSE;
    return VK_SUCCESS;
}

static VkResult VKAPI_CALL mock_GetPhysicalDeviceSurfaceCapabilitiesKHR(VkPhysicalDevice pd, VkSurfaceKHR surface,
                                                                        VkSurfaceCapabilitiesKHR *caps) {
    char desc[256];
    describe_surface(desc, sizeof desc, surface);
    mock_log(&g_log, "vkGetPhysicalDeviceSurfaceCapabilitiesKHR physicalDevice=%p surface=0x%llx kind=%s",
             (void *)pd, (unsigned long long)surface, desc);
    memset(caps, 0, sizeof *caps);
    caps->minImageCount = 2;
    caps->maxImageCount = 8;
    caps->currentExtent = (VkExtent2D){640, 480};
    caps->minImageExtent = (VkExtent2D){1, 1};
    caps->maxImageExtent = (VkExtent2D){4096, 4096};
    caps->maxImageArrayLayers = 1;
    caps->supportedTransforms = VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR;
    caps->currentTransform = VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR;
    caps->supportedCompositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
    caps->supportedUsageFlags = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
    return VK_SUCCESS;
}

static VkResult VKAPI_CALL mock_GetPhysicalDeviceSurfaceFormatsKHR(VkPhysicalDevice pd, VkSurfaceKHR surface,
                                                                   uint32_t *pCount, VkSurfaceFormatKHR *out) {
    char desc[256];
    describe_surface(desc, sizeof desc, surface);
    mock_log(&g_log, "vkGetPhysicalDeviceSurfaceFormatsKHR physicalDevice=%p surface=0x%llx kind=%s", (void *)pd,
             (unsigned long long)surface, desc);
    static const VkSurfaceFormatKHR formats[] = {
        {VK_FORMAT_B8G8R8A8_UNORM, VK_COLOR_SPACE_SRGB_NONLINEAR_KHR},
        {VK_FORMAT_B8G8R8A8_SRGB, VK_COLOR_SPACE_SRGB_NONLINEAR_KHR},
    };
    return mock_fill(pCount, out, formats, 2, sizeof formats[0]);
}

static VkResult VKAPI_CALL mock_GetPhysicalDeviceSurfacePresentModesKHR(VkPhysicalDevice pd, VkSurfaceKHR surface,
                                                                        uint32_t *pCount, VkPresentModeKHR *out) {
    char desc[256];
    describe_surface(desc, sizeof desc, surface);
    mock_log(&g_log, "vkGetPhysicalDeviceSurfacePresentModesKHR physicalDevice=%p surface=0x%llx kind=%s",
             (void *)pd, (unsigned long long)surface, desc);
    static const VkPresentModeKHR modes[] = {VK_PRESENT_MODE_FIFO_KHR, VK_PRESENT_MODE_MAILBOX_KHR};
    return mock_fill(pCount, out, modes, 2, sizeof modes[0]);
}

static VkResult VKAPI_CALL mock_GetPhysicalDeviceDisplayPropertiesKHR(VkPhysicalDevice pd, uint32_t *pCount,
                                                                      VkDisplayPropertiesKHR *out) {
    mock_log(&g_log, "vkGetPhysicalDeviceDisplayPropertiesKHR physicalDevice=%p", (void *)pd);
    *pCount = 0;
    return VK_SUCCESS;
}

static VkResult VKAPI_CALL mock_GetPhysicalDeviceDisplayPlanePropertiesKHR(VkPhysicalDevice pd, uint32_t *pCount,
                                                                           VkDisplayPlanePropertiesKHR *out) {
    mock_log(&g_log, "vkGetPhysicalDeviceDisplayPlanePropertiesKHR physicalDevice=%p", (void *)pd);
    *pCount = 0;
    return VK_SUCCESS;
}

/* ----------------------------------------------------------------------------------------- global */

static VkResult VKAPI_CALL mock_EnumerateInstanceExtensionProperties(const char *pLayerName, uint32_t *pCount,
                                                                     VkExtensionProperties *out) {
    ensure_config();
    mock_log(&g_log, "vkEnumerateInstanceExtensionProperties layer=%s", pLayerName ? pLayerName : "NULL");
    if (pLayerName) return VK_ERROR_LAYER_NOT_PRESENT;
    return mock_fill_extensions(pCount, out, g_config.instance_extensions, g_config.instance_extension_count);
}

static VkResult VKAPI_CALL mock_EnumerateInstanceVersion(uint32_t *pApiVersion) {
    char v[32];
    version_text(v, sizeof v, g_config.api_version);
    mock_log(&g_log, "vkEnumerateInstanceVersion version=%s", v);
    *pApiVersion = g_config.api_version;
    return VK_SUCCESS;
}

static VkResult VKAPI_CALL mock_EnumerateInstanceLayerProperties(uint32_t *pCount, VkLayerProperties *out) {
    *pCount = 0;
    return VK_SUCCESS;
}

static VkResult VKAPI_CALL mock_CreateInstance(const VkInstanceCreateInfo *ci, const VkAllocationCallbacks *a,
                                               VkInstance *pInstance) {
    ensure_config();
    char exts[8192], pnext[512], api[32];
    mock_join(exts, sizeof exts, ci->enabledExtensionCount, ci->ppEnabledExtensionNames);
    mock_describe_pnext(pnext, sizeof pnext, ci->pNext);
    uint32_t app_api = ci->pApplicationInfo ? ci->pApplicationInfo->apiVersion : 0;
    version_text(api, sizeof api, app_api);
    const char *app = ci->pApplicationInfo && ci->pApplicationInfo->pApplicationName
                          ? ci->pApplicationInfo->pApplicationName
                          : "";
    VkResult result = (VkResult)g_config.create_instance_result;
    const char *why = result ? "injected" : "";
    for (uint32_t i = 0; !result && g_config.strict_extensions && i < ci->enabledExtensionCount; i++) {
        if (!mock_has_name(g_config.instance_extensions, g_config.instance_extension_count,
                           ci->ppEnabledExtensionNames[i])) {
            result = VK_ERROR_EXTENSION_NOT_PRESENT;
            why = ci->ppEnabledExtensionNames[i];
        }
    }
    /* LDP_DRIVER_9: below interface 5 the driver itself must refuse versions it lacks */
    uint32_t iface = g_negotiated ? g_negotiated : (g_negotiate_called ? 0 : 1);
    if (!result && g_config.check_api_version && iface < 5 && app_api &&
        VK_MAKE_API_VERSION(0, VK_API_VERSION_MAJOR(app_api), VK_API_VERSION_MINOR(app_api), 0) >
            VK_MAKE_API_VERSION(0, VK_API_VERSION_MAJOR(g_config.api_version),
                                VK_API_VERSION_MINOR(g_config.api_version), 0)) {
        result = VK_ERROR_INCOMPATIBLE_DRIVER;
        why = "apiVersion";
    }
    MockInstance *inst = NULL;
    if (!result) {
        inst = calloc(1, sizeof *inst);
        if (!inst) result = VK_ERROR_OUT_OF_HOST_MEMORY;
    }
    if (inst) {
        set_magic(inst);
        inst->api_version = app_api;
        inst->physical_device_count = g_config.device_count;
        for (uint32_t i = 0; i < g_config.device_count; i++) {
            set_magic(&inst->physical_devices[i]);
            inst->physical_devices[i].instance = inst;
            inst->physical_devices[i].index = i;
        }
        *pInstance = (VkInstance)inst;
    }
    mock_log(&g_log,
             "vkCreateInstance instance=%p apiVersion=%s app=%s exts=%s layers=%u flags=0x%x pnext=%s result=%d%s%s",
             (void *)inst, api, app, exts, ci->enabledLayerCount, ci->flags, pnext, (int)result, *why ? " why=" : "",
             why);
    return result;
}

/* ----------------------------------------------------------------------------------------- instance */

static void VKAPI_CALL mock_DestroyInstance(VkInstance instance, const VkAllocationCallbacks *a) {
    mock_log(&g_log, "vkDestroyInstance instance=%p", (void *)instance);
    free(instance);
}

static VkResult VKAPI_CALL mock_EnumeratePhysicalDevices(VkInstance instance, uint32_t *pCount,
                                                         VkPhysicalDevice *out) {
    MockInstance *inst = (MockInstance *)instance;
    VkResult result = (VkResult)g_config.enumerate_physical_devices_result;
    if (result) {
        mock_log(&g_log, "vkEnumeratePhysicalDevices instance=%p result=%d why=injected", (void *)instance,
                 (int)result);
        return result;
    }
    VkPhysicalDevice handles[MAX_DEVICES];
    for (uint32_t i = 0; i < inst->physical_device_count; i++) handles[i] = (VkPhysicalDevice)&inst->physical_devices[i];
    result = mock_fill(pCount, out, handles, inst->physical_device_count, sizeof handles[0]);
    char list[MAX_DEVICES * 24] = "";
    size_t len = 0;
    for (uint32_t i = 0; out && i < *pCount; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%p", i ? "," : "", (void *)out[i]);
    mock_log(&g_log, "vkEnumeratePhysicalDevices instance=%p count=%u devices=%s result=%d", (void *)instance, *pCount,
             list, (int)result);
    return result;
}

static uint32_t group_count_and_members(MockInstance *inst, VkPhysicalDeviceGroupProperties *groups, uint32_t cap) {
    uint32_t n = 0;
    uint32_t group_index_of[MAX_DEVICES];
    for (uint32_t i = 0; i < inst->physical_device_count; i++)
        group_index_of[i] = g_config.has_groups ? g_config.group_of[i] : i;
    /* groups are listed in order of their first member */
    uint32_t seen[MAX_DEVICES];
    uint32_t seen_count = 0;
    for (uint32_t i = 0; i < inst->physical_device_count; i++) {
        uint32_t g = group_index_of[i];
        if (g == UINT32_MAX) g = MAX_DEVICES + i; /* unlisted: a group of its own */
        uint32_t slot = UINT32_MAX;
        for (uint32_t s = 0; s < seen_count; s++)
            if (seen[s] == g) slot = s;
        if (slot == UINT32_MAX) {
            slot = seen_count;
            seen[seen_count++] = g;
            n++;
            if (groups && slot < cap) {
                groups[slot].physicalDeviceCount = 0;
                groups[slot].subsetAllocation = VK_FALSE;
            }
        }
        if (groups && slot < cap && groups[slot].physicalDeviceCount < VK_MAX_DEVICE_GROUP_SIZE)
            groups[slot].physicalDevices[groups[slot].physicalDeviceCount++] =
                (VkPhysicalDevice)&inst->physical_devices[i];
    }
    return n;
}

static VkResult VKAPI_CALL mock_EnumeratePhysicalDeviceGroups(VkInstance instance, uint32_t *pCount,
                                                              VkPhysicalDeviceGroupProperties *out) {
    MockInstance *inst = (MockInstance *)instance;
    VkResult result = (VkResult)(g_config.has_groups_result ? g_config.groups_result
                                                            : g_config.enumerate_physical_devices_result);
    if (result) {
        mock_log(&g_log, "vkEnumeratePhysicalDeviceGroups instance=%p result=%d why=injected", (void *)instance,
                 (int)result);
        return result;
    }
    VkPhysicalDeviceGroupProperties all[MAX_DEVICES];
    memset(all, 0, sizeof all);
    uint32_t have = group_count_and_members(inst, all, MAX_DEVICES);
    if (!out) {
        *pCount = have;
    } else {
        uint32_t n = *pCount < have ? *pCount : have;
        for (uint32_t i = 0; i < n; i++) {
            out[i].physicalDeviceCount = all[i].physicalDeviceCount;
            out[i].subsetAllocation = all[i].subsetAllocation;
            memcpy(out[i].physicalDevices, all[i].physicalDevices, sizeof all[i].physicalDevices);
        }
        *pCount = n;
        result = n < have ? VK_INCOMPLETE : VK_SUCCESS;
    }
    mock_log(&g_log, "vkEnumeratePhysicalDeviceGroups instance=%p count=%u result=%d", (void *)instance, *pCount,
             (int)result);
    return result;
}

static void fill_properties(VkPhysicalDevice pd, VkPhysicalDeviceProperties *p) {
    DeviceConfig *d = device_config(pd);
    memset(p, 0, sizeof *p);
    p->apiVersion = d->api_version;
    p->driverVersion = d->driver_version;
    p->vendorID = d->vendor_id;
    p->deviceID = d->device_id;
    p->deviceType = d->type;
    snprintf(p->deviceName, sizeof p->deviceName, "%s", d->name);
    memcpy(p->pipelineCacheUUID, d->uuid, VK_UUID_SIZE);
    p->limits.maxImageDimension2D = 4096;
    p->limits.maxMemoryAllocationCount = 4096;
    p->limits.maxBoundDescriptorSets = 4;
    p->limits.maxComputeWorkGroupCount[0] = p->limits.maxComputeWorkGroupCount[1] =
        p->limits.maxComputeWorkGroupCount[2] = 65535;
    p->limits.maxComputeWorkGroupInvocations = 128;
    p->limits.maxComputeWorkGroupSize[0] = p->limits.maxComputeWorkGroupSize[1] = 128;
    p->limits.maxComputeWorkGroupSize[2] = 64;
    p->limits.timestampPeriod = 1.0f;
    p->limits.lineWidthRange[0] = 1.0f;
    p->limits.lineWidthRange[1] = 8.0f;
    p->limits.nonCoherentAtomSize = 64;
    p->limits.minMemoryMapAlignment = 64;
}

static void VKAPI_CALL mock_GetPhysicalDeviceProperties(VkPhysicalDevice pd, VkPhysicalDeviceProperties *p) {
    mock_log(&g_log, "vkGetPhysicalDeviceProperties physicalDevice=%p", (void *)pd);
    fill_properties(pd, p);
}

static void VKAPI_CALL mock_GetPhysicalDeviceProperties2(VkPhysicalDevice pd, VkPhysicalDeviceProperties2 *p) {
    char pnext[512];
    mock_describe_pnext(pnext, sizeof pnext, p->pNext);
    mock_log(&g_log, "vkGetPhysicalDeviceProperties2 physicalDevice=%p pnext=%s", (void *)pd, pnext);
    fill_properties(pd, &p->properties);
    DeviceConfig *d = device_config(pd);
    for (VkBaseOutStructure *s = p->pNext; s; s = s->pNext) {
        switch (s->sType) {
        case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES: {
            VkPhysicalDeviceDriverProperties *dp = (void *)s;
            dp->driverID = (VkDriverId)d->driver_id;
            snprintf(dp->driverName, sizeof dp->driverName, "%s", d->driver_name);
            snprintf(dp->driverInfo, sizeof dp->driverInfo, "%s", d->driver_info);
            dp->conformanceVersion = (VkConformanceVersion){0, 0, 0, 0}; /* LDP_DRIVER_5: not conformant */
            break;
        }
        case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PCI_BUS_INFO_PROPERTIES_EXT: {
            VkPhysicalDevicePCIBusInfoPropertiesEXT *pci = (void *)s;
            pci->pciDomain = d->pci_domain;
            pci->pciBus = d->pci_bus;
            pci->pciDevice = d->pci_device;
            pci->pciFunction = d->pci_function;
            break;
        }
        case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES: {
            VkPhysicalDeviceIDProperties *id = (void *)s;
            memcpy(id->deviceUUID, d->uuid, VK_UUID_SIZE);
            memcpy(id->driverUUID, d->uuid, VK_UUID_SIZE);
            id->driverUUID[0] ^= 0xFF;
            id->deviceLUIDValid = VK_FALSE;
            break;
        }
        case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_PROPERTIES: {
            VkPhysicalDeviceVulkan11Properties *v = (void *)s;
            memcpy(v->deviceUUID, d->uuid, VK_UUID_SIZE);
            memcpy(v->driverUUID, d->uuid, VK_UUID_SIZE);
            v->driverUUID[0] ^= 0xFF;
            v->subgroupSize = 32;
            v->maxMultiviewViewCount = 6;
            v->maxPerSetDescriptors = 1024;
            v->maxMemoryAllocationSize = 1ull << 30;
            break;
        }
        case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES: {
            VkPhysicalDeviceVulkan12Properties *v = (void *)s;
            v->driverID = (VkDriverId)d->driver_id;
            snprintf(v->driverName, sizeof v->driverName, "%s", d->driver_name);
            snprintf(v->driverInfo, sizeof v->driverInfo, "%s", d->driver_info);
            break;
        }
        default:
            break;
        }
    }
}

static void VKAPI_CALL mock_GetPhysicalDeviceFeatures(VkPhysicalDevice pd, VkPhysicalDeviceFeatures *f) {
    mock_log(&g_log, "vkGetPhysicalDeviceFeatures physicalDevice=%p", (void *)pd);
    memset(f, 0, sizeof *f);
    f->wideLines = VK_TRUE;
}

static void VKAPI_CALL mock_GetPhysicalDeviceFeatures2(VkPhysicalDevice pd, VkPhysicalDeviceFeatures2 *f) {
    mock_log(&g_log, "vkGetPhysicalDeviceFeatures2 physicalDevice=%p", (void *)pd);
    memset(&f->features, 0, sizeof f->features);
    f->features.wideLines = VK_TRUE;
}

static void VKAPI_CALL mock_GetPhysicalDeviceQueueFamilyProperties(VkPhysicalDevice pd, uint32_t *pCount,
                                                                   VkQueueFamilyProperties *out) {
    mock_log(&g_log, "vkGetPhysicalDeviceQueueFamilyProperties physicalDevice=%p", (void *)pd);
    DeviceConfig *d = device_config(pd);
    mock_fill(pCount, out, d->queue_families, d->queue_family_count, sizeof d->queue_families[0]);
}

static void VKAPI_CALL mock_GetPhysicalDeviceQueueFamilyProperties2(VkPhysicalDevice pd, uint32_t *pCount,
                                                                    VkQueueFamilyProperties2 *out) {
    mock_log(&g_log, "vkGetPhysicalDeviceQueueFamilyProperties2 physicalDevice=%p", (void *)pd);
    DeviceConfig *d = device_config(pd);
    if (!out) {
        *pCount = d->queue_family_count;
        return;
    }
    uint32_t n = *pCount < d->queue_family_count ? *pCount : d->queue_family_count;
    for (uint32_t i = 0; i < n; i++) out[i].queueFamilyProperties = d->queue_families[i];
    *pCount = n;
}

static void fill_memory(VkPhysicalDevice pd, VkPhysicalDeviceMemoryProperties *m) {
    DeviceConfig *d = device_config(pd);
    memset(m, 0, sizeof *m);
    m->memoryTypeCount = d->memory_type_count;
    memcpy(m->memoryTypes, d->memory_types, sizeof d->memory_types);
    m->memoryHeapCount = d->memory_heap_count;
    memcpy(m->memoryHeaps, d->memory_heaps, sizeof d->memory_heaps);
}

static void VKAPI_CALL mock_GetPhysicalDeviceMemoryProperties(VkPhysicalDevice pd,
                                                              VkPhysicalDeviceMemoryProperties *m) {
    mock_log(&g_log, "vkGetPhysicalDeviceMemoryProperties physicalDevice=%p", (void *)pd);
    fill_memory(pd, m);
}

static void VKAPI_CALL mock_GetPhysicalDeviceMemoryProperties2(VkPhysicalDevice pd,
                                                               VkPhysicalDeviceMemoryProperties2 *m) {
    mock_log(&g_log, "vkGetPhysicalDeviceMemoryProperties2 physicalDevice=%p", (void *)pd);
    fill_memory(pd, &m->memoryProperties);
}

static void VKAPI_CALL mock_GetPhysicalDeviceFormatProperties(VkPhysicalDevice pd, VkFormat format,
                                                              VkFormatProperties *p) {
    memset(p, 0, sizeof *p);
    p->optimalTilingFeatures = VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT | VK_FORMAT_FEATURE_TRANSFER_DST_BIT;
    p->bufferFeatures = VK_FORMAT_FEATURE_VERTEX_BUFFER_BIT;
}

static void VKAPI_CALL mock_GetPhysicalDeviceFormatProperties2(VkPhysicalDevice pd, VkFormat format,
                                                               VkFormatProperties2 *p) {
    mock_GetPhysicalDeviceFormatProperties(pd, format, &p->formatProperties);
}

static VkResult VKAPI_CALL mock_GetPhysicalDeviceImageFormatProperties(VkPhysicalDevice pd, VkFormat format,
                                                                       VkImageType type, VkImageTiling tiling,
                                                                       VkImageUsageFlags usage,
                                                                       VkImageCreateFlags flags,
                                                                       VkImageFormatProperties *p) {
    memset(p, 0, sizeof *p);
    p->maxExtent = (VkExtent3D){4096, 4096, 1};
    p->maxMipLevels = 1;
    p->maxArrayLayers = 1;
    p->sampleCounts = VK_SAMPLE_COUNT_1_BIT;
    p->maxResourceSize = 1ull << 30;
    return VK_SUCCESS;
}

static VkResult VKAPI_CALL mock_GetPhysicalDeviceImageFormatProperties2(VkPhysicalDevice pd,
                                                                        const VkPhysicalDeviceImageFormatInfo2 *info,
                                                                        VkImageFormatProperties2 *p) {
    return mock_GetPhysicalDeviceImageFormatProperties(pd, info->format, info->type, info->tiling, info->usage,
                                                       info->flags, &p->imageFormatProperties);
}

static void VKAPI_CALL mock_GetPhysicalDeviceSparseImageFormatProperties(VkPhysicalDevice pd, VkFormat format,
                                                                         VkImageType type,
                                                                         VkSampleCountFlagBits samples,
                                                                         VkImageUsageFlags usage,
                                                                         VkImageTiling tiling, uint32_t *pCount,
                                                                         VkSparseImageFormatProperties *out) {
    *pCount = 0;
}

static void VKAPI_CALL mock_GetPhysicalDeviceSparseImageFormatProperties2(
    VkPhysicalDevice pd, const VkPhysicalDeviceSparseImageFormatInfo2 *info, uint32_t *pCount,
    VkSparseImageFormatProperties2 *out) {
    *pCount = 0;
}

static VkResult VKAPI_CALL mock_EnumerateDeviceExtensionProperties(VkPhysicalDevice pd, const char *pLayerName,
                                                                   uint32_t *pCount, VkExtensionProperties *out) {
    mock_log(&g_log, "vkEnumerateDeviceExtensionProperties physicalDevice=%p layer=%s", (void *)pd,
             pLayerName ? pLayerName : "NULL");
    if (pLayerName) return VK_ERROR_LAYER_NOT_PRESENT;
    DeviceConfig *d = device_config(pd);
    return mock_fill_extensions(pCount, out, d->extensions, d->extension_count);
}

static VkResult VKAPI_CALL mock_EnumerateDeviceLayerProperties(VkPhysicalDevice pd, uint32_t *pCount,
                                                               VkLayerProperties *out) {
    *pCount = 0;
    return VK_SUCCESS;
}

/* ----------------------------------------------------------------------------------------- unknown */

#define UNKNOWN_SLOTS 4

#define DEFINE_UNKNOWN_PD(slot)                                                                                   \
    static uint32_t VKAPI_CALL mock_UnknownPhysicalDeviceFn##slot(VkPhysicalDevice pd, uint32_t x) {               \
        MockPhysicalDevice *p = (MockPhysicalDevice *)pd;                                                          \
        uint32_t r = g_config.unknown_base + (slot) * 0x1000u + p->index * 0x100u + x;                             \
        mock_log(&g_log, "vkMockUnknownPhysicalDeviceFn%s physicalDevice=%p x=%u result=%u", (slot) ? #slot : "", (void *)pd, \
                 x, r);                                                                                            \
        return r;                                                                                                  \
    }
#define DEFINE_UNKNOWN_DEV(slot)                                                                                    \
    static uint32_t VKAPI_CALL mock_UnknownDeviceFn##slot(VkDevice device, uint32_t x) {                            \
        uint32_t r = g_config.unknown_base + 0x8000u + (slot) * 0x1000u + x;                                       \
        mock_log(&g_log, "vkMockUnknownDeviceFn%s device=%p x=%u result=%u", (slot) ? #slot : "", (void *)device, x, r);    \
        return r;                                                                                                  \
    }

/* slot 0 is named without a number: vkMockUnknownPhysicalDeviceFn, vkMockUnknownDeviceFn */
DEFINE_UNKNOWN_PD(0)
DEFINE_UNKNOWN_PD(1)
DEFINE_UNKNOWN_PD(2)
DEFINE_UNKNOWN_PD(3)
DEFINE_UNKNOWN_DEV(0)
DEFINE_UNKNOWN_DEV(1)
DEFINE_UNKNOWN_DEV(2)
DEFINE_UNKNOWN_DEV(3)

static const struct {
    const char *name;
    PFN_vkVoidFunction fn;
} UNKNOWN_PD_FNS[UNKNOWN_SLOTS] = {
    {"vkMockUnknownPhysicalDeviceFn", (PFN_vkVoidFunction)mock_UnknownPhysicalDeviceFn0},
    {"vkMockUnknownPhysicalDeviceFn1", (PFN_vkVoidFunction)mock_UnknownPhysicalDeviceFn1},
    {"vkMockUnknownPhysicalDeviceFn2", (PFN_vkVoidFunction)mock_UnknownPhysicalDeviceFn2},
    {"vkMockUnknownPhysicalDeviceFn3", (PFN_vkVoidFunction)mock_UnknownPhysicalDeviceFn3},
},
  UNKNOWN_DEV_FNS[UNKNOWN_SLOTS] = {
      {"vkMockUnknownDeviceFn", (PFN_vkVoidFunction)mock_UnknownDeviceFn0},
      {"vkMockUnknownDeviceFn1", (PFN_vkVoidFunction)mock_UnknownDeviceFn1},
      {"vkMockUnknownDeviceFn2", (PFN_vkVoidFunction)mock_UnknownDeviceFn2},
      {"vkMockUnknownDeviceFn3", (PFN_vkVoidFunction)mock_UnknownDeviceFn3},
};

/* ----------------------------------------------------------------------------------------- device */

static VkResult VKAPI_CALL mock_CreateDevice(VkPhysicalDevice pd, const VkDeviceCreateInfo *ci,
                                             const VkAllocationCallbacks *a, VkDevice *pDevice) {
    char exts[8192], pnext[512], queues[256] = "";
    mock_join(exts, sizeof exts, ci->enabledExtensionCount, ci->ppEnabledExtensionNames);
    mock_describe_pnext(pnext, sizeof pnext, ci->pNext);
    size_t qlen = 0;
    uint32_t total = 0;
    for (uint32_t i = 0; i < ci->queueCreateInfoCount; i++) {
        qlen += (size_t)snprintf(queues + qlen, sizeof queues - qlen, "%s%u:%u", i ? "," : "",
                                 ci->pQueueCreateInfos[i].queueFamilyIndex, ci->pQueueCreateInfos[i].queueCount);
        total += ci->pQueueCreateInfos[i].queueCount;
        if (qlen >= sizeof queues) qlen = sizeof queues - 1;
    }
    DeviceConfig *d = device_config(pd);
    VkResult result = (VkResult)g_config.create_device_result;
    const char *why = result ? "injected" : "";
    for (uint32_t i = 0; !result && g_config.strict_extensions && i < ci->enabledExtensionCount; i++) {
        if (!mock_has_name(d->extensions, d->extension_count, ci->ppEnabledExtensionNames[i])) {
            result = VK_ERROR_EXTENSION_NOT_PRESENT;
            why = ci->ppEnabledExtensionNames[i];
        }
    }
    MockDevice *dev = NULL;
    if (!result) {
        dev = calloc(1, sizeof *dev);
        MockQueue *qs = calloc(total ? total : 1, sizeof *qs);
        if (!dev || !qs) {
            free(dev);
            free(qs);
            dev = NULL;
            result = VK_ERROR_OUT_OF_HOST_MEMORY;
        } else {
            set_magic(dev);
            dev->physical_device = (MockPhysicalDevice *)pd;
            dev->queues = qs;
            uint32_t k = 0;
            for (uint32_t i = 0; i < ci->queueCreateInfoCount; i++) {
                for (uint32_t q = 0; q < ci->pQueueCreateInfos[i].queueCount; q++, k++) {
                    set_magic(&qs[k]);
                    qs[k].family = ci->pQueueCreateInfos[i].queueFamilyIndex;
                    qs[k].index = q;
                }
            }
            dev->queue_count = total;
            *pDevice = (VkDevice)dev;
        }
    }
    mock_log(&g_log, "vkCreateDevice physicalDevice=%p device=%p exts=%s queues=%s pnext=%s result=%d%s%s",
             (void *)pd, (void *)dev, exts, queues, pnext, (int)result, *why ? " why=" : "", why);
    return result;
}

static void free_pool(MockCommandPool *pool) {
    for (MockCommandBuffer *cb = pool->buffers; cb;) {
        MockCommandBuffer *next = cb->next;
        free(cb);
        cb = next;
    }
    free(pool);
}

static void VKAPI_CALL mock_DestroyDevice(VkDevice device, const VkAllocationCallbacks *a) {
    mock_log(&g_log, "vkDestroyDevice device=%p", (void *)device);
    MockDevice *dev = (MockDevice *)device;
    if (!dev) return;
    for (MockCommandPool *p = dev->pools; p;) {
        MockCommandPool *next = p->next;
        free_pool(p);
        p = next;
    }
    free(dev->queues);
    free(dev);
}

static MockQueue *find_queue(MockDevice *dev, uint32_t family, uint32_t index) {
    for (uint32_t i = 0; i < dev->queue_count; i++)
        if (dev->queues[i].family == family && dev->queues[i].index == index) return &dev->queues[i];
    return NULL;
}

static void VKAPI_CALL mock_GetDeviceQueue(VkDevice device, uint32_t family, uint32_t index, VkQueue *pQueue) {
    MockQueue *q = find_queue((MockDevice *)device, family, index);
    *pQueue = (VkQueue)q;
    mock_log(&g_log, "vkGetDeviceQueue device=%p family=%u index=%u queue=%p", (void *)device, family, index,
             (void *)q);
}

static void VKAPI_CALL mock_GetDeviceQueue2(VkDevice device, const VkDeviceQueueInfo2 *info, VkQueue *pQueue) {
    MockQueue *q = find_queue((MockDevice *)device, info->queueFamilyIndex, info->queueIndex);
    *pQueue = (VkQueue)q;
    mock_log(&g_log, "vkGetDeviceQueue2 device=%p family=%u index=%u queue=%p", (void *)device,
             info->queueFamilyIndex, info->queueIndex, (void *)q);
}

static VkResult VKAPI_CALL mock_QueueWaitIdle(VkQueue queue) {
    mock_log(&g_log, "vkQueueWaitIdle queue=%p", (void *)queue);
    return VK_SUCCESS;
}

static VkResult VKAPI_CALL mock_DeviceWaitIdle(VkDevice device) {
    mock_log(&g_log, "vkDeviceWaitIdle device=%p", (void *)device);
    return VK_SUCCESS;
}

static VkResult VKAPI_CALL mock_CreateCommandPool(VkDevice device, const VkCommandPoolCreateInfo *ci,
                                                  const VkAllocationCallbacks *a, VkCommandPool *pPool) {
    MockDevice *dev = (MockDevice *)device;
    MockCommandPool *pool = calloc(1, sizeof *pool);
    if (!pool) return VK_ERROR_OUT_OF_HOST_MEMORY;
    pool->id = next_id();
    pool->family = ci->queueFamilyIndex;
    pool->next = dev->pools;
    dev->pools = pool;
    *pPool = (VkCommandPool)(uintptr_t)pool;
    mock_log(&g_log, "vkCreateCommandPool device=%p pool=0x%llx family=%u", (void *)device,
             (unsigned long long)*pPool, ci->queueFamilyIndex);
    return VK_SUCCESS;
}

static void VKAPI_CALL mock_DestroyCommandPool(VkDevice device, VkCommandPool commandPool,
                                               const VkAllocationCallbacks *a) {
    mock_log(&g_log, "vkDestroyCommandPool device=%p pool=0x%llx", (void *)device, (unsigned long long)commandPool);
    MockDevice *dev = (MockDevice *)device;
    for (MockCommandPool **p = &dev->pools; *p; p = &(*p)->next) {
        if ((uint64_t)(uintptr_t)*p == (uint64_t)commandPool) {
            MockCommandPool *dead = *p;
            *p = dead->next;
            free_pool(dead);
            return;
        }
    }
}

static VkResult VKAPI_CALL mock_AllocateCommandBuffers(VkDevice device, const VkCommandBufferAllocateInfo *info,
                                                       VkCommandBuffer *out) {
    MockCommandPool *pool = (MockCommandPool *)(uintptr_t)info->commandPool;
    char list[512] = "";
    size_t len = 0;
    for (uint32_t i = 0; i < info->commandBufferCount; i++) {
        MockCommandBuffer *cb = calloc(1, sizeof *cb);
        if (!cb) return VK_ERROR_OUT_OF_HOST_MEMORY;
        set_magic(cb);
        cb->id = next_id();
        cb->pool = pool;
        cb->next = pool->buffers;
        pool->buffers = cb;
        out[i] = (VkCommandBuffer)cb;
        if (len < sizeof list) len += (size_t)snprintf(list + len, sizeof list - len, "%s%p", i ? "," : "", (void *)cb);
    }
    mock_log(&g_log, "vkAllocateCommandBuffers device=%p pool=0x%llx count=%u commandBuffers=%s", (void *)device,
             (unsigned long long)info->commandPool, info->commandBufferCount, list);
    return VK_SUCCESS;
}

static void VKAPI_CALL mock_FreeCommandBuffers(VkDevice device, VkCommandPool commandPool, uint32_t count,
                                               const VkCommandBuffer *buffers) {
    mock_log(&g_log, "vkFreeCommandBuffers device=%p pool=0x%llx count=%u", (void *)device,
             (unsigned long long)commandPool, count);
    MockCommandPool *pool = (MockCommandPool *)(uintptr_t)commandPool;
    for (uint32_t i = 0; i < count; i++) {
        for (MockCommandBuffer **p = &pool->buffers; *p; p = &(*p)->next) {
            if ((void *)*p == (void *)buffers[i]) {
                MockCommandBuffer *dead = *p;
                *p = dead->next;
                free(dead);
                break;
            }
        }
    }
}

static VkResult VKAPI_CALL mock_BeginCommandBuffer(VkCommandBuffer cb, const VkCommandBufferBeginInfo *info) {
    mock_log(&g_log, "vkBeginCommandBuffer commandBuffer=%p flags=0x%x", (void *)cb, info ? info->flags : 0);
    return VK_SUCCESS;
}

static VkResult VKAPI_CALL mock_EndCommandBuffer(VkCommandBuffer cb) {
    mock_log(&g_log, "vkEndCommandBuffer commandBuffer=%p", (void *)cb);
    return VK_SUCCESS;
}

static void VKAPI_CALL mock_CmdSetLineWidth(VkCommandBuffer cb, float width) {
    mock_log(&g_log, "vkCmdSetLineWidth commandBuffer=%p lineWidth=%g", (void *)cb, (double)width);
}

static void VKAPI_CALL mock_CmdDraw(VkCommandBuffer cb, uint32_t vertexCount, uint32_t instanceCount,
                                    uint32_t firstVertex, uint32_t firstInstance) {
    mock_log(&g_log, "vkCmdDraw commandBuffer=%p vertexCount=%u instanceCount=%u firstVertex=%u firstInstance=%u",
             (void *)cb, vertexCount, instanceCount, firstVertex, firstInstance);
}

static VkResult VKAPI_CALL mock_CreateSwapchainKHR(VkDevice device, const VkSwapchainCreateInfoKHR *ci,
                                                   const VkAllocationCallbacks *a, VkSwapchainKHR *pSwapchain) {
    char desc[256];
    describe_surface(desc, sizeof desc, ci->surface);
    MockSwapchain *sc = calloc(1, sizeof *sc);
    if (!sc) return VK_ERROR_OUT_OF_HOST_MEMORY;
    sc->id = next_id();
    sc->surface = ci->surface;
    *pSwapchain = (VkSwapchainKHR)(uintptr_t)sc;
    mock_log(&g_log, "vkCreateSwapchainKHR device=%p swapchain=0x%llx surface=0x%llx kind=%s images=%u extent=%ux%u",
             (void *)device, (unsigned long long)*pSwapchain, (unsigned long long)ci->surface, desc,
             ci->minImageCount, ci->imageExtent.width, ci->imageExtent.height);
    return VK_SUCCESS;
}

static void VKAPI_CALL mock_DestroySwapchainKHR(VkDevice device, VkSwapchainKHR swapchain,
                                                const VkAllocationCallbacks *a) {
    mock_log(&g_log, "vkDestroySwapchainKHR device=%p swapchain=0x%llx", (void *)device,
             (unsigned long long)swapchain);
    free((void *)(uintptr_t)swapchain);
}

/* Plain non-dispatchable objects: enough for applications (vulkaninfo, compute demos) to run. */
typedef struct MockHandle {
    uint64_t id;
    VkDeviceSize size;
} MockHandle;

static uint64_t new_handle(VkDeviceSize size) {
    MockHandle *h = calloc(1, sizeof *h);
    if (!h) return 0;
    h->id = next_id();
    h->size = size;
    return (uint64_t)(uintptr_t)h;
}

static void free_handle(uint64_t handle) { free((void *)(uintptr_t)handle); }

static uint32_t all_memory_types(VkDevice device) {
    DeviceConfig *d = &g_config.devices[((MockDevice *)device)->physical_device->index];
    return d->memory_type_count >= 32 ? UINT32_MAX : (1u << d->memory_type_count) - 1;
}

static VkResult VKAPI_CALL mock_CreateImage(VkDevice device, const VkImageCreateInfo *ci, const VkAllocationCallbacks *a,
                                            VkImage *out) {
    *out = (VkImage)new_handle((VkDeviceSize)ci->extent.width * ci->extent.height * 4);
    return *out ? VK_SUCCESS : VK_ERROR_OUT_OF_HOST_MEMORY;
}

static void VKAPI_CALL mock_DestroyImage(VkDevice device, VkImage image, const VkAllocationCallbacks *a) {
    free_handle((uint64_t)image);
}

static VkResult VKAPI_CALL mock_CreateBuffer(VkDevice device, const VkBufferCreateInfo *ci,
                                             const VkAllocationCallbacks *a, VkBuffer *out) {
    *out = (VkBuffer)new_handle(ci->size);
    mock_log(&g_log, "vkCreateBuffer device=%p buffer=0x%llx size=%llu", (void *)device, (unsigned long long)*out,
             (unsigned long long)ci->size);
    return *out ? VK_SUCCESS : VK_ERROR_OUT_OF_HOST_MEMORY;
}

static void VKAPI_CALL mock_DestroyBuffer(VkDevice device, VkBuffer buffer, const VkAllocationCallbacks *a) {
    free_handle((uint64_t)buffer);
}

static void requirements(VkDevice device, uint64_t handle, VkMemoryRequirements *r) {
    VkDeviceSize size = handle ? ((MockHandle *)(uintptr_t)handle)->size : 0;
    r->size = (size + 255) & ~(VkDeviceSize)255;
    if (!r->size) r->size = 256;
    r->alignment = 256;
    r->memoryTypeBits = all_memory_types(device);
}

static void VKAPI_CALL mock_GetImageMemoryRequirements(VkDevice device, VkImage image, VkMemoryRequirements *r) {
    requirements(device, (uint64_t)image, r);
}

static void VKAPI_CALL mock_GetImageMemoryRequirements2(VkDevice device, const VkImageMemoryRequirementsInfo2 *info,
                                                        VkMemoryRequirements2 *r) {
    requirements(device, (uint64_t)info->image, &r->memoryRequirements);
}

static void VKAPI_CALL mock_GetBufferMemoryRequirements(VkDevice device, VkBuffer buffer, VkMemoryRequirements *r) {
    requirements(device, (uint64_t)buffer, r);
}

static void VKAPI_CALL mock_GetBufferMemoryRequirements2(VkDevice device,
                                                         const VkBufferMemoryRequirementsInfo2 *info,
                                                         VkMemoryRequirements2 *r) {
    requirements(device, (uint64_t)info->buffer, &r->memoryRequirements);
}

static VkResult VKAPI_CALL mock_AllocateMemory(VkDevice device, const VkMemoryAllocateInfo *info,
                                               const VkAllocationCallbacks *a, VkDeviceMemory *out) {
    *out = (VkDeviceMemory)new_handle(info->allocationSize);
    mock_log(&g_log, "vkAllocateMemory device=%p memory=0x%llx size=%llu type=%u", (void *)device,
             (unsigned long long)*out, (unsigned long long)info->allocationSize, info->memoryTypeIndex);
    return *out ? VK_SUCCESS : VK_ERROR_OUT_OF_HOST_MEMORY;
}

static void VKAPI_CALL mock_FreeMemory(VkDevice device, VkDeviceMemory memory, const VkAllocationCallbacks *a) {
    free_handle((uint64_t)memory);
}

static VkResult VKAPI_CALL mock_BindBufferMemory(VkDevice device, VkBuffer buffer, VkDeviceMemory memory,
                                                 VkDeviceSize offset) {
    return VK_SUCCESS;
}

static VkResult VKAPI_CALL mock_BindImageMemory(VkDevice device, VkImage image, VkDeviceMemory memory,
                                                VkDeviceSize offset) {
    return VK_SUCCESS;
}

static VkResult VKAPI_CALL mock_CreateFence(VkDevice device, const VkFenceCreateInfo *ci,
                                            const VkAllocationCallbacks *a, VkFence *out) {
    *out = (VkFence)new_handle(0);
    return *out ? VK_SUCCESS : VK_ERROR_OUT_OF_HOST_MEMORY;
}

static void VKAPI_CALL mock_DestroyFence(VkDevice device, VkFence fence, const VkAllocationCallbacks *a) {
    free_handle((uint64_t)fence);
}

static VkResult VKAPI_CALL mock_WaitForFences(VkDevice device, uint32_t count, const VkFence *fences, VkBool32 all,
                                              uint64_t timeout) {
    return VK_SUCCESS;
}

static VkResult VKAPI_CALL mock_ResetFences(VkDevice device, uint32_t count, const VkFence *fences) {
    return VK_SUCCESS;
}

static VkResult VKAPI_CALL mock_QueueSubmit(VkQueue queue, uint32_t count, const VkSubmitInfo *submits,
                                            VkFence fence) {
    mock_log(&g_log, "vkQueueSubmit queue=%p submits=%u fence=0x%llx", (void *)queue, count,
             (unsigned long long)fence);
    return VK_SUCCESS;
}

/* ----------------------------------------------------------------------------------------- proc addr */

typedef struct Entry {
    const char *name;
    PFN_vkVoidFunction fn;
} Entry;

#define E(name) {"vk" #name, (PFN_vkVoidFunction)mock_##name}

static const Entry DEVICE_ENTRIES[] = {
    E(DestroyDevice),          E(GetDeviceQueue),        E(GetDeviceQueue2),       E(QueueWaitIdle),
    E(DeviceWaitIdle),         E(CreateCommandPool),     E(DestroyCommandPool),    E(AllocateCommandBuffers),
    E(FreeCommandBuffers),     E(BeginCommandBuffer),    E(EndCommandBuffer),      E(CmdSetLineWidth),
    E(CmdDraw),                E(CreateSwapchainKHR),    E(DestroySwapchainKHR),
    E(CreateImage),            E(DestroyImage),          E(GetImageMemoryRequirements),
    E(GetImageMemoryRequirements2),                      E(CreateBuffer),          E(DestroyBuffer),
    E(GetBufferMemoryRequirements),                      E(GetBufferMemoryRequirements2),
    E(AllocateMemory),         E(FreeMemory),            E(BindBufferMemory),      E(BindImageMemory),
    E(CreateFence),            E(DestroyFence),          E(WaitForFences),         E(ResetFences),
    E(QueueSubmit),
};

static const Entry PHYSICAL_DEVICE_ENTRIES[] = {
    E(GetPhysicalDeviceProperties),
    E(GetPhysicalDeviceProperties2),
    {"vkGetPhysicalDeviceProperties2KHR", (PFN_vkVoidFunction)mock_GetPhysicalDeviceProperties2},
    E(GetPhysicalDeviceFeatures),
    E(GetPhysicalDeviceFeatures2),
    {"vkGetPhysicalDeviceFeatures2KHR", (PFN_vkVoidFunction)mock_GetPhysicalDeviceFeatures2},
    E(GetPhysicalDeviceQueueFamilyProperties),
    E(GetPhysicalDeviceQueueFamilyProperties2),
    {"vkGetPhysicalDeviceQueueFamilyProperties2KHR", (PFN_vkVoidFunction)mock_GetPhysicalDeviceQueueFamilyProperties2},
    E(GetPhysicalDeviceMemoryProperties),
    E(GetPhysicalDeviceMemoryProperties2),
    {"vkGetPhysicalDeviceMemoryProperties2KHR", (PFN_vkVoidFunction)mock_GetPhysicalDeviceMemoryProperties2},
    E(GetPhysicalDeviceFormatProperties),
    E(GetPhysicalDeviceFormatProperties2),
    {"vkGetPhysicalDeviceFormatProperties2KHR", (PFN_vkVoidFunction)mock_GetPhysicalDeviceFormatProperties2},
    E(GetPhysicalDeviceImageFormatProperties),
    E(GetPhysicalDeviceImageFormatProperties2),
    {"vkGetPhysicalDeviceImageFormatProperties2KHR",
     (PFN_vkVoidFunction)mock_GetPhysicalDeviceImageFormatProperties2},
    E(GetPhysicalDeviceSparseImageFormatProperties),
    E(GetPhysicalDeviceSparseImageFormatProperties2),
    {"vkGetPhysicalDeviceSparseImageFormatProperties2KHR",
     (PFN_vkVoidFunction)mock_GetPhysicalDeviceSparseImageFormatProperties2},
    E(EnumerateDeviceExtensionProperties),
    E(EnumerateDeviceLayerProperties),
    E(CreateDevice),
    E(GetPhysicalDeviceSurfaceSupportKHR),
    E(GetPhysicalDeviceSurfaceCapabilitiesKHR),
    E(GetPhysicalDeviceSurfaceFormatsKHR),
    E(GetPhysicalDeviceSurfacePresentModesKHR),
    E(GetPhysicalDeviceDisplayPropertiesKHR),
    E(GetPhysicalDeviceDisplayPlanePropertiesKHR),
};

static const Entry INSTANCE_ENTRIES[] = {
    E(DestroyInstance),
    E(EnumeratePhysicalDevices),
};

static const Entry SURFACE_CREATE_ENTRIES[] = {
    E(CreateXcbSurfaceKHR),      E(CreateXlibSurfaceKHR),          E(CreateWaylandSurfaceKHR),
    E(CreateHeadlessSurfaceEXT), E(CreateDisplayPlaneSurfaceKHR), E(DestroySurfaceKHR),
};

#undef E

static PFN_vkVoidFunction lookup(const Entry *entries, size_t count, const char *name) {
    for (size_t i = 0; i < count; i++)
        if (strcmp(entries[i].name, name) == 0) return entries[i].fn;
    return NULL;
}

#define LOOKUP(table, name) lookup(table, sizeof table / sizeof table[0], name)

static PFN_vkVoidFunction VKAPI_CALL mock_GetDeviceProcAddr(VkDevice device, const char *name);

static PFN_vkVoidFunction device_proc(const char *name) {
    if (strcmp(name, "vkGetDeviceProcAddr") == 0) return (PFN_vkVoidFunction)mock_GetDeviceProcAddr;
    PFN_vkVoidFunction fn = LOOKUP(DEVICE_ENTRIES, name);
    if (fn) return fn;
    if (g_config.unknown_functions)
        for (int i = 0; i < UNKNOWN_SLOTS; i++)
            if (strcmp(UNKNOWN_DEV_FNS[i].name, name) == 0) return UNKNOWN_DEV_FNS[i].fn;
    return NULL;
}

static PFN_vkVoidFunction physical_device_proc(const char *name) {
    if (!g_config.groups_supported && strstr(name, "vkEnumeratePhysicalDeviceGroups") == name) return NULL;
    PFN_vkVoidFunction fn = LOOKUP(PHYSICAL_DEVICE_ENTRIES, name);
    if (fn) return fn;
    if (g_config.unknown_functions)
        for (int i = 0; i < UNKNOWN_SLOTS; i++)
            if (strcmp(UNKNOWN_PD_FNS[i].name, name) == 0) return UNKNOWN_PD_FNS[i].fn;
    return NULL;
}

static PFN_vkVoidFunction VKAPI_CALL mock_GetDeviceProcAddr(VkDevice device, const char *name) {
    PFN_vkVoidFunction fn = device_proc(name);
    if (g_config.log_proc_addr)
        mock_log(&g_log, "vkGetDeviceProcAddr device=%p name=%s found=%d", (void *)device, name, fn != NULL);
    return fn;
}

static VkResult VKAPI_CALL mock_NegotiateLoaderICDInterfaceVersion(uint32_t *pVersion);
static PFN_vkVoidFunction VKAPI_CALL mock_GetPhysicalDeviceProcAddr(VkInstance instance, const char *name);
static VkResult VKAPI_CALL mock_EnumerateAdapterPhysicalDevices(VkInstance instance, uint64_t luid,
                                                                uint32_t *pCount, VkPhysicalDevice *out);

static uint32_t effective_interface(void) {
#if defined(MOCK_VARIANT_V0)
    return 0;
#elif defined(MOCK_VARIANT_V1)
    return 1;
#else
    /* a loader that calls GIPA without negotiating is a legacy (interface 1) loader */
    return g_negotiate_called ? g_negotiated : 1;
#endif
}

static PFN_vkVoidFunction VKAPI_CALL mock_GetInstanceProcAddr(VkInstance instance, const char *name) {
    ensure_config();
    PFN_vkVoidFunction fn = NULL;
    if (strcmp(name, "vkGetInstanceProcAddr") == 0) fn = (PFN_vkVoidFunction)mock_GetInstanceProcAddr;
    else if (strcmp(name, "vkCreateInstance") == 0) fn = (PFN_vkVoidFunction)mock_CreateInstance;
    else if (strcmp(name, "vkEnumerateInstanceExtensionProperties") == 0)
        fn = (PFN_vkVoidFunction)mock_EnumerateInstanceExtensionProperties;
    else if (strcmp(name, "vkEnumerateInstanceLayerProperties") == 0)
        fn = (PFN_vkVoidFunction)mock_EnumerateInstanceLayerProperties;
    else if (strcmp(name, "vkEnumerateInstanceVersion") == 0) {
        if (g_config.enumerate_instance_version) fn = (PFN_vkVoidFunction)mock_EnumerateInstanceVersion;
    }
#if !defined(MOCK_VARIANT_V0) && !defined(MOCK_VARIANT_V1)
    else if (g_config.interface_version >= 7 && strcmp(name, "vk_icdNegotiateLoaderICDInterfaceVersion") == 0)
        fn = (PFN_vkVoidFunction)mock_NegotiateLoaderICDInterfaceVersion;
    else if (g_config.interface_version >= 7 && strcmp(name, "vk_icdGetPhysicalDeviceProcAddr") == 0) {
        if (g_config.physical_device_proc_addr) fn = (PFN_vkVoidFunction)mock_GetPhysicalDeviceProcAddr;
    } else if (g_config.interface_version >= 7 && strcmp(name, "vk_icdEnumerateAdapterPhysicalDevices") == 0) {
        if (g_config.enumerate_adapter) fn = (PFN_vkVoidFunction)mock_EnumerateAdapterPhysicalDevices;
    }
#endif
    else if (strcmp(name, "vkEnumeratePhysicalDeviceGroups") == 0 ||
             strcmp(name, "vkEnumeratePhysicalDeviceGroupsKHR") == 0) {
        if (g_config.groups_supported) fn = (PFN_vkVoidFunction)mock_EnumeratePhysicalDeviceGroups;
    } else if (strcmp(name, "vkGetDeviceProcAddr") == 0) fn = (PFN_vkVoidFunction)mock_GetDeviceProcAddr;
    else if ((fn = LOOKUP(INSTANCE_ENTRIES, name))) {
    } else if ((effective_interface() >= 3 || g_config.surfaces_below_3) && g_config.own_surfaces &&
               (fn = LOOKUP(SURFACE_CREATE_ENTRIES, name))) {
    } else if ((fn = physical_device_proc(name))) {
    } else fn = device_proc(name);
    if (g_config.log_proc_addr)
        mock_log(&g_log, "vkGetInstanceProcAddr instance=%p name=%s found=%d", (void *)instance, name, fn != NULL);
    return fn;
}

__attribute__((unused)) static PFN_vkVoidFunction VKAPI_CALL mock_GetPhysicalDeviceProcAddr(VkInstance instance, const char *name) {
    ensure_config();
    PFN_vkVoidFunction fn = physical_device_proc(name);
    if (g_config.log_proc_addr)
        mock_log(&g_log, "vk_icdGetPhysicalDeviceProcAddr instance=%p name=%s found=%d", (void *)instance, name,
                 fn != NULL);
    return fn;
}

__attribute__((unused)) static VkResult VKAPI_CALL mock_NegotiateLoaderICDInterfaceVersion(uint32_t *pVersion) {
    ensure_config();
    uint32_t offered = *pVersion;
    VkResult result = (VkResult)g_config.negotiate_result;
    if (!result && offered < g_config.min_interface) result = VK_ERROR_INCOMPATIBLE_DRIVER;
    g_negotiate_called = 1;
    if (!result) {
        g_negotiated = offered < g_config.interface_version ? offered : g_config.interface_version;
        if (g_config.negotiate_answer) g_negotiated = g_config.negotiate_answer;
        *pVersion = g_negotiated;
    }
    mock_log(&g_log, "vk_icdNegotiateLoaderICDInterfaceVersion offered=%u returned=%u result=%d", offered,
             result ? offered : g_negotiated, (int)result);
    return result;
}

/* LUID passed by value: 8 bytes, one register. Linux loaders never call it; tests may. */
__attribute__((unused)) static VkResult VKAPI_CALL mock_EnumerateAdapterPhysicalDevices(VkInstance instance, uint64_t luid,
                                                                uint32_t *pCount, VkPhysicalDevice *out) {
    mock_log(&g_log, "vk_icdEnumerateAdapterPhysicalDevices instance=%p luid=0x%llx", (void *)instance,
             (unsigned long long)luid);
    return mock_EnumeratePhysicalDevices(instance, pCount, out);
}

/* ----------------------------------------------------------------------------------------- exports */

#if defined(MOCK_VARIANT_V0)
MOCK_EXPORT PFN_vkVoidFunction VKAPI_CALL vkGetInstanceProcAddr(VkInstance instance, const char *name) {
    return mock_GetInstanceProcAddr(instance, name);
}
MOCK_EXPORT VkResult VKAPI_CALL vkCreateInstance(const VkInstanceCreateInfo *ci, const VkAllocationCallbacks *a,
                                                 VkInstance *pInstance) {
    return mock_CreateInstance(ci, a, pInstance);
}
MOCK_EXPORT VkResult VKAPI_CALL vkEnumerateInstanceExtensionProperties(const char *pLayerName, uint32_t *pCount,
                                                                       VkExtensionProperties *out) {
    return mock_EnumerateInstanceExtensionProperties(pLayerName, pCount, out);
}
#else
MOCK_EXPORT PFN_vkVoidFunction VKAPI_CALL vk_icdGetInstanceProcAddr(VkInstance instance, const char *name) {
    return mock_GetInstanceProcAddr(instance, name);
}
#endif

#if defined(MOCK_VARIANT_EXPORT) || defined(MOCK_VARIANT_EXPORT_NOPHYS)
MOCK_EXPORT VkResult VKAPI_CALL vk_icdNegotiateLoaderICDInterfaceVersion(uint32_t *pVersion) {
    return mock_NegotiateLoaderICDInterfaceVersion(pVersion);
}
#endif

#if defined(MOCK_VARIANT_EXPORT)
MOCK_EXPORT PFN_vkVoidFunction VKAPI_CALL vk_icdGetPhysicalDeviceProcAddr(VkInstance instance, const char *name) {
    return mock_GetPhysicalDeviceProcAddr(instance, name);
}
MOCK_EXPORT VkResult VKAPI_CALL vk_icdEnumerateAdapterPhysicalDevices(VkInstance instance, uint64_t luid,
                                                                      uint32_t *pCount, VkPhysicalDevice *out) {
    return mock_EnumerateAdapterPhysicalDevices(instance, luid, pCount, out);
}
#endif
