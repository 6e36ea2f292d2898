/*
 * vkdeno mock Vulkan layer, configured at run time (see mock_common.h).
 *
 * Variants (exports fixed at link time):
 *   standard  vkNegotiateLoaderLayerInterfaceVersion, vkGetInstanceProcAddr, vkGetDeviceProcAddr,
 *             vk_layerGetPhysicalDeviceProcAddr
 *   nonego    vkGetInstanceProcAddr, vkGetDeviceProcAddr (interface 0/1 layers)
 *   renamed   MockLayer_NegotiateLoaderLayerInterfaceVersion, MockLayer_GetInstanceProcAddr,
 *             MockLayer_GetDeviceProcAddr (a manifest's "functions" must name them)
 * Every variant exports the pre-instance functions MockLayer_PreEnumerateInstanceExtensionProperties,
 * MockLayer_PreEnumerateInstanceLayerProperties, MockLayer_PreEnumerateInstanceVersion, and the
 * mock_layer_* control functions.
 *
 * Configuration keys: name, log_name, log, interface, negotiate_result, negotiate_answer, intercept,
 * instance_extensions,
 * instance_entrypoints, device_extensions, device_entrypoints, function_base, create_instance_result,
 * create_device_result, wrap_device, wrap_command_buffers, remove_physical_devices,
 * reverse_physical_devices, add_physical_devices, create_device_callback, create_device_null_instance,
 * pre_instance_version,
 * pre_instance_extension.
 *
 * Every intercepted call logs one line on entry, before calling down, so the
 * shared log shows the chain order from the application down to the driver.
 */
#define _GNU_SOURCE
#define VK_NO_PROTOTYPES
#include <vulkan/vulkan_core.h>
#include <vulkan/vk_layer.h>

#include "mock_common.h"

#if !defined(MOCK_LAYER_VARIANT_STANDARD) && !defined(MOCK_LAYER_VARIANT_NONEGO) && \
    !defined(MOCK_LAYER_VARIANT_RENAMED)
#define MOCK_LAYER_VARIANT_STANDARD
#endif

#define MAX_PHYSICAL_DEVICES 64
#define MAX_ADDED 8

/* ----------------------------------------------------------------------------------------- config */

typedef struct LayerConfig {
    char name[VK_MAX_EXTENSION_NAME_SIZE];
    uint32_t interface_version;
    int32_t negotiate_result;
    /* when nonzero: the version negotiation reports, whatever was offered (a layer above the offer) */
    uint32_t negotiate_answer;
    int intercept_all;
    MockName intercept[MOCK_MAX_NAMES];
    uint32_t intercept_count;
    MockName instance_extensions[MOCK_MAX_NAMES], instance_entrypoints[MOCK_MAX_NAMES];
    uint32_t instance_extension_count, instance_entrypoint_count;
    MockName device_extensions[MOCK_MAX_NAMES], device_entrypoints[MOCK_MAX_NAMES];
    uint32_t device_extension_count, device_entrypoint_count;
    uint32_t function_base;
    int32_t create_instance_result, create_device_result;
    int wrap_device, wrap_command_buffers, reverse_physical_devices, create_device_callback;
    int create_device_null_instance;
    uint32_t remove[MAX_PHYSICAL_DEVICES];
    uint32_t remove_count;
    uint32_t add_physical_devices;
    uint32_t pre_instance_version; /* 0: call down */
    char pre_instance_extension[VK_MAX_EXTENSION_NAME_SIZE];
} LayerConfig;

static LayerConfig g_config;
static MockLog g_log = {.mutex = PTHREAD_MUTEX_INITIALIZER, .name = "mock_layer", .fd = -1};
static int g_configured;
static int g_log_name_set;
static pthread_mutex_t g_mutex = PTHREAD_MUTEX_INITIALIZER;

static void config_defaults(void) {
    memset(&g_config, 0, sizeof g_config);
    snprintf(g_config.name, sizeof g_config.name, "VK_LAYER_MOCK_layer");
    snprintf(g_log.name, sizeof g_log.name, "VK_LAYER_MOCK_layer");
    g_config.interface_version = 2;
    g_config.intercept_all = 1;
    g_config.function_base = 0x20000;
}

static void on_section(void *ctx, const char *section) {}

static void on_entry(void *ctx, const char *k, const char *v) {
    LayerConfig *c = &g_config;
    if (strcmp(k, "name") == 0) {
        snprintf(c->name, sizeof c->name, "%s", v);
        if (!g_log_name_set) snprintf(g_log.name, sizeof g_log.name, "%s", v);
    } else if (strcmp(k, "log_name") == 0) {
        snprintf(g_log.name, sizeof g_log.name, "%s", v);
        g_log_name_set = 1;
    }
    else if (strcmp(k, "log") == 0) mock_log_open(&g_log, v);
    else if (strcmp(k, "interface") == 0) c->interface_version = mock_parse_u32(v);
    else if (strcmp(k, "negotiate_result") == 0) c->negotiate_result = mock_parse_i32(v);
    else if (strcmp(k, "negotiate_answer") == 0) c->negotiate_answer = mock_parse_u32(v);
    else if (strcmp(k, "intercept") == 0) {
        c->intercept_all = 0;
        c->intercept_count = mock_parse_names(v, c->intercept, MOCK_MAX_NAMES);
    } else if (strcmp(k, "instance_extensions") == 0)
        c->instance_extension_count = mock_parse_names(v, c->instance_extensions, MOCK_MAX_NAMES);
    else if (strcmp(k, "instance_entrypoints") == 0)
        c->instance_entrypoint_count = mock_parse_names(v, c->instance_entrypoints, MOCK_MAX_NAMES);
    else if (strcmp(k, "device_extensions") == 0)
        c->device_extension_count = mock_parse_names(v, c->device_extensions, MOCK_MAX_NAMES);
    else if (strcmp(k, "device_entrypoints") == 0)
        c->device_entrypoint_count = mock_parse_names(v, c->device_entrypoints, MOCK_MAX_NAMES);
    else if (strcmp(k, "function_base") == 0) c->function_base = mock_parse_u32(v);
    else if (strcmp(k, "create_instance_result") == 0) c->create_instance_result = mock_parse_i32(v);
    else if (strcmp(k, "create_device_result") == 0) c->create_device_result = mock_parse_i32(v);
    else if (strcmp(k, "wrap_device") == 0) c->wrap_device = mock_parse_i32(v);
    else if (strcmp(k, "wrap_command_buffers") == 0) c->wrap_command_buffers = mock_parse_i32(v);
    else if (strcmp(k, "reverse_physical_devices") == 0) c->reverse_physical_devices = mock_parse_i32(v);
    else if (strcmp(k, "create_device_callback") == 0) c->create_device_callback = mock_parse_i32(v);
    else if (strcmp(k, "create_device_null_instance") == 0) c->create_device_null_instance = mock_parse_i32(v);
    else if (strcmp(k, "add_physical_devices") == 0) {
        c->add_physical_devices = mock_parse_u32(v);
        if (c->add_physical_devices > MAX_ADDED) c->add_physical_devices = MAX_ADDED;
    } else if (strcmp(k, "remove_physical_devices") == 0) {
        MockName items[MAX_PHYSICAL_DEVICES];
        c->remove_count = mock_parse_names(v, items, MAX_PHYSICAL_DEVICES);
        for (uint32_t i = 0; i < c->remove_count; i++) c->remove[i] = mock_parse_u32(items[i].name);
    } else if (strcmp(k, "pre_instance_version") == 0) c->pre_instance_version = mock_parse_version(v);
    else if (strcmp(k, "pre_instance_extension") == 0)
        snprintf(c->pre_instance_extension, sizeof c->pre_instance_extension, "%s", v);
}

static void apply_config(const char *text) {
    config_defaults();
    g_log_name_set = 0;
    mock_log_open(&g_log, NULL);
    if (text) mock_parse_config(text, NULL, on_section, on_entry);
}

/* Replaces the configuration with `text` (the same format as the .conf file beside the library). */
MOCK_EXPORT void mock_layer_configure(const char *text) {
    pthread_mutex_lock(&g_mutex);
    apply_config(text);
    g_configured = 1;
    pthread_mutex_unlock(&g_mutex);
}

static void ensure_config(void) {
    pthread_mutex_lock(&g_mutex);
    if (!g_configured) {
        char *text = mock_read_sidecar_config((const void *)&mock_layer_configure);
        apply_config(text);
        free(text);
        g_configured = 1;
    }
    pthread_mutex_unlock(&g_mutex);
}

MOCK_EXPORT const char *mock_layer_log(void) {
    ensure_config();
    return mock_log_text(&g_log);
}

MOCK_EXPORT void mock_layer_log_clear(void) { mock_log_clear(&g_log); }

/* ----------------------------------------------------------------------------------------- records */

typedef struct FakePhysicalDevice {
    void *loader_data; /* dispatch pointer, stamped through pfnSetInstanceLoaderData */
    uint32_t index;
} FakePhysicalDevice;

typedef struct InstanceRecord {
    VkInstance instance;
    void *key;
    PFN_vkGetInstanceProcAddr next_gipa;
    PFN_GetPhysicalDeviceProcAddr next_gpdpa;
    PFN_vkSetInstanceLoaderData set_loader_data;
    PFN_vkLayerCreateDevice layer_create_device;
    PFN_vkLayerDestroyDevice layer_destroy_device;
    FakePhysicalDevice *added[MAX_ADDED];
    uint32_t added_count;
    PFN_vkVoidFunction table[32]; /* next entity's functions, resolved in vkCreateInstance */
    struct InstanceRecord *next;
} InstanceRecord;

/*
 * Next-entity functions are resolved right after the down-call, as the loader
 * documents: the Khronos terminator's GetInstanceProcAddr answers later
 * queries from the instance's top-level dispatch table, i.e. the layer itself.
 */
static const char *const INSTANCE_NEXT_NAMES[] = {
    "vkDestroyInstance",
    "vkEnumeratePhysicalDevices",
    "vkEnumeratePhysicalDeviceGroups",
    "vkEnumeratePhysicalDeviceGroupsKHR",
    "vkGetPhysicalDeviceProperties",
    "vkGetPhysicalDeviceProperties2",
    "vkGetPhysicalDeviceProperties2KHR",
    "vkGetPhysicalDeviceFeatures",
    "vkGetPhysicalDeviceQueueFamilyProperties",
    "vkGetPhysicalDeviceMemoryProperties",
    "vkEnumerateDeviceExtensionProperties",
    "vkGetPhysicalDeviceSurfaceSupportKHR",
};

static const char *const DEVICE_NEXT_NAMES[] = {
    "vkDestroyDevice",      "vkGetDeviceQueue",       "vkGetDeviceQueue2",        "vkQueueWaitIdle",
    "vkDeviceWaitIdle",     "vkCreateCommandPool",    "vkDestroyCommandPool",     "vkAllocateCommandBuffers",
    "vkFreeCommandBuffers", "vkBeginCommandBuffer",   "vkEndCommandBuffer",       "vkCmdSetLineWidth",
    "vkCmdDraw",            "vkCreateSwapchainKHR",   "vkDestroySwapchainKHR",
};

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static int name_index(const char *const *names, size_t count, const char *name) {
    for (size_t i = 0; i < count; i++)
        if (strcmp(names[i], name) == 0) return (int)i;
    return -1;
}

typedef struct CommandBufferWrapper {
    void *loader_data;
    VkCommandBuffer real;
    struct CommandBufferWrapper *next;
} CommandBufferWrapper;

typedef struct DeviceWrapper {
    void *loader_data;
    struct DeviceRecord *record;
} DeviceWrapper;

typedef struct DeviceRecord {
    VkDevice device; /* the handle from below */
    void *key;
    DeviceWrapper *wrapper;
    InstanceRecord *instance;
    PFN_vkGetDeviceProcAddr next_gdpa;
    PFN_vkSetDeviceLoaderData set_loader_data;
    int via_callback;
    CommandBufferWrapper *command_buffers;
    PFN_vkVoidFunction table[32]; /* next entity's functions, resolved in vkCreateDevice */
    struct DeviceRecord *next;
} DeviceRecord;

static InstanceRecord *g_instances;
static DeviceRecord *g_devices;

static void *dispatch_key(const void *handle) { return handle ? *(void *const *)handle : NULL; }

static InstanceRecord *instance_record(const void *handle) {
    pthread_mutex_lock(&g_mutex);
    InstanceRecord *found = NULL;
    for (InstanceRecord *r = g_instances; r && !found; r = r->next)
        if ((const void *)r->instance == handle) found = r;
    for (InstanceRecord *r = g_instances; r && !found && handle; r = r->next)
        for (uint32_t i = 0; i < r->added_count && !found; i++)
            if ((const void *)r->added[i] == handle) found = r;
    void *key = found ? NULL : dispatch_key(handle);
    for (InstanceRecord *r = g_instances; r && !found && key; r = r->next)
        if (r->key == key) found = r;
    if (found && !found->key && (const void *)found->instance == handle) found->key = dispatch_key(handle);
    /* a physical device from below whose first word we do not know: one instance is the common case */
    if (!found) found = g_instances;
    pthread_mutex_unlock(&g_mutex);
    return found;
}

static FakePhysicalDevice *as_fake(VkPhysicalDevice pd) {
    pthread_mutex_lock(&g_mutex);
    FakePhysicalDevice *found = NULL;
    for (InstanceRecord *r = g_instances; r && !found; r = r->next)
        for (uint32_t i = 0; i < r->added_count; i++)
            if ((void *)r->added[i] == (void *)pd) found = r->added[i];
    pthread_mutex_unlock(&g_mutex);
    return found;
}

static CommandBufferWrapper *as_wrapped_command_buffer(const void *handle) {
    pthread_mutex_lock(&g_mutex);
    CommandBufferWrapper *found = NULL;
    for (DeviceRecord *d = g_devices; d && !found; d = d->next)
        for (CommandBufferWrapper *w = d->command_buffers; w && !found; w = w->next)
            if ((const void *)w == handle) found = w;
    pthread_mutex_unlock(&g_mutex);
    return found;
}

/* Finds the device record of any device-level handle: a device (wrapped or not), queue or command buffer. */
static DeviceRecord *device_record(const void *handle) {
    pthread_mutex_lock(&g_mutex);
    DeviceRecord *found = NULL;
    for (DeviceRecord *d = g_devices; d && !found; d = d->next)
        if ((const void *)d->device == handle || (const void *)d->wrapper == handle) found = d;
    for (DeviceRecord *d = g_devices; d && !found; d = d->next)
        for (CommandBufferWrapper *w = d->command_buffers; w && !found; w = w->next)
            if ((const void *)w == handle) found = d;
    void *key = found ? NULL : dispatch_key(handle);
    for (DeviceRecord *d = g_devices; d && !found; d = d->next)
        if (d->key == key) found = d;
    if (found && !found->key && ((const void *)found->device == handle || (const void *)found->wrapper == handle))
        found->key = dispatch_key(handle);
    if (!found) found = g_devices;
    pthread_mutex_unlock(&g_mutex);
    return found;
}

static VkDevice unwrap_device(VkDevice device) {
    DeviceRecord *r = device_record(device);
    return r ? r->device : device;
}

static VkCommandBuffer unwrap_command_buffer(VkCommandBuffer cb) {
    CommandBufferWrapper *w = as_wrapped_command_buffer(cb);
    return w ? w->real : cb;
}

static PFN_vkVoidFunction next_instance_fn(const void *handle, const char *name) {
    InstanceRecord *r = instance_record(handle);
    if (!r) return NULL;
    int i = name_index(INSTANCE_NEXT_NAMES, COUNT_OF(INSTANCE_NEXT_NAMES), name);
    return i >= 0 ? r->table[i] : r->next_gipa(r->instance, name);
}

static PFN_vkVoidFunction next_device_fn(const void *handle, const char *name) {
    DeviceRecord *r = device_record(handle);
    if (!r) return NULL;
    int i = name_index(DEVICE_NEXT_NAMES, COUNT_OF(DEVICE_NEXT_NAMES), name);
    return i >= 0 ? r->table[i] : r->next_gdpa(r->device, name);
}

#define NEXT_I(handle, type, unused) ((PFN_##type)next_instance_fn((handle), #type))
#define NEXT_D(handle, type) ((PFN_##type)next_device_fn((handle), #type))

static int intercepts(const char *name) {
    return g_config.intercept_all || mock_has_name(g_config.intercept, g_config.intercept_count, name);
}

static int reshapes_physical_devices(void) {
    return g_config.remove_count || g_config.reverse_physical_devices || g_config.add_physical_devices;
}

/* ----------------------------------------------------------------------------------------- chain structs */

static void *find_chain(const void *pnext, VkStructureType stype, VkLayerFunction function) {
    for (const VkBaseInStructure *s = pnext; s; s = s->pNext) {
        if (s->sType != stype) continue;
        if (stype == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO &&
            ((const VkLayerInstanceCreateInfo *)s)->function == function)
            return (void *)s;
        if (stype == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO &&
            ((const VkLayerDeviceCreateInfo *)s)->function == function)
            return (void *)s;
    }
    return NULL;
}

/* "link,data,..." naming the loader structs seen in a create-info chain */
static void describe_chain(char *out, size_t cap, const void *pnext) {
    size_t len = 0;
    out[0] = '\0';
    static const char *const NAMES[] = {"link", "data", "create_device", "features"};
    for (const VkBaseInStructure *s = pnext; s && len + 1 < cap; s = s->pNext) {
        int f = -1;
        if (s->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO) f = (int)((const VkLayerInstanceCreateInfo *)s)->function;
        else if (s->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO) f = (int)((const VkLayerDeviceCreateInfo *)s)->function;
        else continue;
        len += (size_t)snprintf(out + len, cap - len, "%s%s", len ? "," : "", f >= 0 && f < 4 ? NAMES[f] : "other");
    }
}

/* ----------------------------------------------------------------------------------------- global */

static VkResult VKAPI_CALL layer_EnumerateInstanceLayerProperties(uint32_t *pCount, VkLayerProperties *out) {
    ensure_config();
    if (!out) {
        *pCount = 1;
        return VK_SUCCESS;
    }
    if (*pCount < 1) return VK_INCOMPLETE;
    memset(out, 0, sizeof *out);
    snprintf(out->layerName, sizeof out->layerName, "%s", g_config.name);
    snprintf(out->description, sizeof out->description, "vkdeno mock layer");
    out->specVersion = VK_API_VERSION_1_3;
    out->implementationVersion = 1;
    *pCount = 1;
    return VK_SUCCESS;
}

static VkResult VKAPI_CALL layer_EnumerateInstanceExtensionProperties(const char *pLayerName, uint32_t *pCount,
                                                                      VkExtensionProperties *out) {
    ensure_config();
    if (!pLayerName || strcmp(pLayerName, g_config.name) != 0) return VK_ERROR_LAYER_NOT_PRESENT;
    return mock_fill_extensions(pCount, out, g_config.instance_extensions, g_config.instance_extension_count);
}

static VkResult VKAPI_CALL layer_CreateInstance(const VkInstanceCreateInfo *ci, const VkAllocationCallbacks *a,
                                                VkInstance *pInstance) {
    ensure_config();
    char exts[8192], layers[2048], chain[128], api[32];
    mock_join(exts, sizeof exts, ci->enabledExtensionCount, ci->ppEnabledExtensionNames);
    mock_join(layers, sizeof layers, ci->enabledLayerCount, ci->ppEnabledLayerNames);
    describe_chain(chain, sizeof chain, ci->pNext);
    mock_format_version(api, sizeof api, ci->pApplicationInfo ? ci->pApplicationInfo->apiVersion : 0);
    VkLayerInstanceCreateInfo *link = find_chain(ci->pNext, VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO, VK_LAYER_LINK_INFO);
    VkResult injected = (VkResult)g_config.create_instance_result;
    mock_log(&g_log, "vkCreateInstance apiVersion=%s exts=%s layers=%s chain=%s%s", api, exts, layers, chain,
             injected ? " why=injected" : "");
    if (injected) return injected;
    if (!link || !link->u.pLayerInfo) return VK_ERROR_INITIALIZATION_FAILED;
    PFN_vkGetInstanceProcAddr next_gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    PFN_GetPhysicalDeviceProcAddr next_gpdpa = link->u.pLayerInfo->pfnNextGetPhysicalDeviceProcAddr;
    PFN_vkCreateInstance next_create = (PFN_vkCreateInstance)next_gipa(VK_NULL_HANDLE, "vkCreateInstance");
    if (!next_create) return VK_ERROR_INITIALIZATION_FAILED;
    link->u.pLayerInfo = link->u.pLayerInfo->pNext;
    VkResult result = next_create(ci, a, pInstance);
    if (result != VK_SUCCESS) return result;
    InstanceRecord *r = calloc(1, sizeof *r);
    if (!r) return VK_ERROR_OUT_OF_HOST_MEMORY;
    r->instance = *pInstance;
    r->key = dispatch_key(*pInstance);
    r->next_gipa = next_gipa;
    r->next_gpdpa = next_gpdpa;
    for (size_t i = 0; i < COUNT_OF(INSTANCE_NEXT_NAMES); i++) r->table[i] = next_gipa(*pInstance, INSTANCE_NEXT_NAMES[i]);
    VkLayerInstanceCreateInfo *data = find_chain(ci->pNext, VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO, VK_LOADER_DATA_CALLBACK);
    if (data) r->set_loader_data = data->u.pfnSetInstanceLoaderData;
    VkLayerInstanceCreateInfo *dev = find_chain(ci->pNext, VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO,
                                                VK_LOADER_LAYER_CREATE_DEVICE_CALLBACK);
    if (dev) {
        r->layer_create_device = dev->u.layerDevice.pfnLayerCreateDevice;
        r->layer_destroy_device = dev->u.layerDevice.pfnLayerDestroyDevice;
    }
    pthread_mutex_lock(&g_mutex);
    r->next = g_instances;
    g_instances = r;
    pthread_mutex_unlock(&g_mutex);
    return VK_SUCCESS;
}

static void VKAPI_CALL layer_DestroyInstance(VkInstance instance, const VkAllocationCallbacks *a) {
    mock_log(&g_log, "vkDestroyInstance instance=%p", (void *)instance);
    InstanceRecord *r = instance_record(instance);
    PFN_vkDestroyInstance next = NEXT_I(instance, vkDestroyInstance, 0);
    if (next) next(instance, a);
    if (!r) return;
    pthread_mutex_lock(&g_mutex);
    for (InstanceRecord **p = &g_instances; *p; p = &(*p)->next) {
        if (*p == r) {
            *p = r->next;
            break;
        }
    }
    pthread_mutex_unlock(&g_mutex);
    for (uint32_t i = 0; i < r->added_count; i++) free(r->added[i]);
    free(r);
}

/* ----------------------------------------------------------------------------------------- physical devices */

static void ensure_added(InstanceRecord *r) {
    while (r->added_count < g_config.add_physical_devices) {
        FakePhysicalDevice *f = calloc(1, sizeof *f);
        if (!f) return;
        f->index = r->added_count;
        /* the loader's data callback stamps the dispatch pointer; without it, copy the instance's */
        if (r->set_loader_data) r->set_loader_data(r->instance, f);
        else f->loader_data = dispatch_key(r->instance);
        r->added[r->added_count++] = f;
    }
}

/* The list above this layer: the one from below with removals, reversal and additions applied. */
static uint32_t reshape(InstanceRecord *r, VkPhysicalDevice *list, uint32_t n) {
    VkPhysicalDevice kept[MAX_PHYSICAL_DEVICES + MAX_ADDED];
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        int removed = 0;
        for (uint32_t j = 0; j < g_config.remove_count; j++)
            if (g_config.remove[j] == i) removed = 1;
        if (!removed) kept[k++] = list[i];
    }
    if (g_config.reverse_physical_devices)
        for (uint32_t i = 0; i < k / 2; i++) {
            VkPhysicalDevice t = kept[i];
            kept[i] = kept[k - 1 - i];
            kept[k - 1 - i] = t;
        }
    ensure_added(r);
    for (uint32_t i = 0; i < r->added_count; i++) kept[k++] = (VkPhysicalDevice)r->added[i];
    memcpy(list, kept, k * sizeof kept[0]);
    return k;
}

static VkResult VKAPI_CALL layer_EnumeratePhysicalDevices(VkInstance instance, uint32_t *pCount,
                                                          VkPhysicalDevice *out) {
    mock_log(&g_log, "vkEnumeratePhysicalDevices instance=%p", (void *)instance);
    InstanceRecord *r = instance_record(instance);
    PFN_vkEnumeratePhysicalDevices next = NEXT_I(instance, vkEnumeratePhysicalDevices, 0);
    if (!next || !r) return VK_ERROR_INITIALIZATION_FAILED;
    if (!reshapes_physical_devices()) return next(instance, pCount, out);
    uint32_t n = 0;
    VkResult result = next(instance, &n, NULL);
    if (result != VK_SUCCESS) return result;
    if (n > MAX_PHYSICAL_DEVICES) n = MAX_PHYSICAL_DEVICES;
    VkPhysicalDevice list[MAX_PHYSICAL_DEVICES + MAX_ADDED];
    result = next(instance, &n, list);
    if (result < 0) return result;
    uint32_t total = reshape(r, list, n);
    return mock_fill(pCount, out, list, total, sizeof list[0]);
}

static VkResult VKAPI_CALL layer_EnumeratePhysicalDeviceGroups(VkInstance instance, uint32_t *pCount,
                                                               VkPhysicalDeviceGroupProperties *out) {
    mock_log(&g_log, "vkEnumeratePhysicalDeviceGroups instance=%p", (void *)instance);
    InstanceRecord *r = instance_record(instance);
    PFN_vkEnumeratePhysicalDeviceGroups next = NEXT_I(instance, vkEnumeratePhysicalDeviceGroups, 0);
    if (!next) next = (PFN_vkEnumeratePhysicalDeviceGroups)next_instance_fn(instance, "vkEnumeratePhysicalDeviceGroupsKHR");
    if (!next || !r) return VK_ERROR_INITIALIZATION_FAILED;
    if (!reshapes_physical_devices()) return next(instance, pCount, out);
    /* reshape the flat device list, then regroup: groups keep their members that survive, in the new order */
    uint32_t n = 0;
    VkResult result = next(instance, &n, NULL);
    if (result != VK_SUCCESS) return result;
    VkPhysicalDeviceGroupProperties *groups = calloc(n ? n : 1, sizeof *groups);
    if (!groups) return VK_ERROR_OUT_OF_HOST_MEMORY;
    for (uint32_t i = 0; i < n; i++) groups[i].sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_GROUP_PROPERTIES;
    result = next(instance, &n, groups);
    VkPhysicalDevice flat[MAX_PHYSICAL_DEVICES + MAX_ADDED];
    uint32_t flat_count = 0;
    PFN_vkEnumeratePhysicalDevices enumerate = NEXT_I(instance, vkEnumeratePhysicalDevices, 0);
    uint32_t m = MAX_PHYSICAL_DEVICES;
    if (result >= 0 && enumerate && enumerate(instance, &m, flat) >= 0) flat_count = reshape(r, flat, m);
    VkPhysicalDeviceGroupProperties shaped[MAX_PHYSICAL_DEVICES + MAX_ADDED];
    uint32_t shaped_count = 0;
    for (uint32_t i = 0; i < flat_count; i++) {
        /* a group is emitted at the position of its first surviving member */
        uint32_t g = UINT32_MAX;
        for (uint32_t j = 0; j < n && g == UINT32_MAX; j++)
            for (uint32_t k = 0; k < groups[j].physicalDeviceCount; k++)
                if (groups[j].physicalDevices[k] == flat[i]) g = j;
        int already = 0;
        for (uint32_t s = 0; s < shaped_count && g != UINT32_MAX; s++)
            for (uint32_t k = 0; k < shaped[s].physicalDeviceCount; k++)
                if (shaped[s].physicalDevices[k] == flat[i]) already = 1;
        if (already) continue;
        VkPhysicalDeviceGroupProperties *o = &shaped[shaped_count++];
        memset(o, 0, sizeof *o);
        if (g == UINT32_MAX) {
            o->physicalDeviceCount = 1;
            o->physicalDevices[0] = flat[i];
            continue;
        }
        for (uint32_t f = i; f < flat_count; f++)
            for (uint32_t k = 0; k < groups[g].physicalDeviceCount; k++)
                if (groups[g].physicalDevices[k] == flat[f]) o->physicalDevices[o->physicalDeviceCount++] = flat[f];
        o->subsetAllocation = groups[g].subsetAllocation;
    }
    free(groups);
    if (result < 0) return result;
    if (!out) {
        *pCount = shaped_count;
        return VK_SUCCESS;
    }
    uint32_t c = *pCount < shaped_count ? *pCount : shaped_count;
    for (uint32_t i = 0; i < c; i++) {
        out[i].physicalDeviceCount = shaped[i].physicalDeviceCount;
        memcpy(out[i].physicalDevices, shaped[i].physicalDevices, sizeof shaped[i].physicalDevices);
        out[i].subsetAllocation = shaped[i].subsetAllocation;
    }
    *pCount = c;
    return c < shaped_count ? VK_INCOMPLETE : VK_SUCCESS;
}

static void fake_properties(FakePhysicalDevice *f, VkPhysicalDeviceProperties *p) {
    memset(p, 0, sizeof *p);
    p->apiVersion = VK_API_VERSION_1_3;
    p->vendorID = 0xBEEF;
    p->deviceID = 0xA000 + f->index;
    p->deviceType = VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU;
    snprintf(p->deviceName, sizeof p->deviceName, "%.200s Added Device %u", g_config.name, f->index);
}

static void VKAPI_CALL layer_GetPhysicalDeviceProperties(VkPhysicalDevice pd, VkPhysicalDeviceProperties *p) {
    mock_log(&g_log, "vkGetPhysicalDeviceProperties physicalDevice=%p", (void *)pd);
    FakePhysicalDevice *f = as_fake(pd);
    if (f) return fake_properties(f, p);
    PFN_vkGetPhysicalDeviceProperties next = NEXT_I(pd, vkGetPhysicalDeviceProperties, 0);
    if (next) next(pd, p);
}

static void VKAPI_CALL layer_GetPhysicalDeviceProperties2(VkPhysicalDevice pd, VkPhysicalDeviceProperties2 *p) {
    mock_log(&g_log, "vkGetPhysicalDeviceProperties2 physicalDevice=%p", (void *)pd);
    FakePhysicalDevice *f = as_fake(pd);
    if (f) return fake_properties(f, &p->properties);
    PFN_vkGetPhysicalDeviceProperties2 next = NEXT_I(pd, vkGetPhysicalDeviceProperties2, 0);
    if (!next) next = (PFN_vkGetPhysicalDeviceProperties2)next_instance_fn(pd, "vkGetPhysicalDeviceProperties2KHR");
    if (next) next(pd, p);
}

static void VKAPI_CALL layer_GetPhysicalDeviceFeatures(VkPhysicalDevice pd, VkPhysicalDeviceFeatures *f) {
    mock_log(&g_log, "vkGetPhysicalDeviceFeatures physicalDevice=%p", (void *)pd);
    if (as_fake(pd)) {
        memset(f, 0, sizeof *f);
        return;
    }
    PFN_vkGetPhysicalDeviceFeatures next = NEXT_I(pd, vkGetPhysicalDeviceFeatures, 0);
    if (next) next(pd, f);
}

static void VKAPI_CALL layer_GetPhysicalDeviceQueueFamilyProperties(VkPhysicalDevice pd, uint32_t *pCount,
                                                                    VkQueueFamilyProperties *out) {
    mock_log(&g_log, "vkGetPhysicalDeviceQueueFamilyProperties physicalDevice=%p", (void *)pd);
    if (as_fake(pd)) {
        static const VkQueueFamilyProperties one = {VK_QUEUE_COMPUTE_BIT, 1, 0, {1, 1, 1}};
        mock_fill(pCount, out, &one, 1, sizeof one);
        return;
    }
    PFN_vkGetPhysicalDeviceQueueFamilyProperties next = NEXT_I(pd, vkGetPhysicalDeviceQueueFamilyProperties, 0);
    if (next) next(pd, pCount, out);
}

static void VKAPI_CALL layer_GetPhysicalDeviceMemoryProperties(VkPhysicalDevice pd,
                                                               VkPhysicalDeviceMemoryProperties *m) {
    mock_log(&g_log, "vkGetPhysicalDeviceMemoryProperties physicalDevice=%p", (void *)pd);
    if (as_fake(pd)) {
        memset(m, 0, sizeof *m);
        m->memoryTypeCount = 1;
        m->memoryTypes[0].propertyFlags = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
        m->memoryHeapCount = 1;
        m->memoryHeaps[0].size = 64ull << 20;
        return;
    }
    PFN_vkGetPhysicalDeviceMemoryProperties next = NEXT_I(pd, vkGetPhysicalDeviceMemoryProperties, 0);
    if (next) next(pd, m);
}

static VkResult VKAPI_CALL layer_EnumerateDeviceExtensionProperties(VkPhysicalDevice pd, const char *pLayerName,
                                                                    uint32_t *pCount, VkExtensionProperties *out) {
    ensure_config();
    if (pLayerName && strcmp(pLayerName, g_config.name) == 0)
        return mock_fill_extensions(pCount, out, g_config.device_extensions, g_config.device_extension_count);
    mock_log(&g_log, "vkEnumerateDeviceExtensionProperties physicalDevice=%p layer=%s", (void *)pd,
             pLayerName ? pLayerName : "NULL");
    if (as_fake(pd)) {
        *pCount = 0;
        return VK_SUCCESS;
    }
    PFN_vkEnumerateDeviceExtensionProperties next = NEXT_I(pd, vkEnumerateDeviceExtensionProperties, 0);
    return next ? next(pd, pLayerName, pCount, out) : VK_ERROR_INITIALIZATION_FAILED;
}

static VkResult VKAPI_CALL layer_EnumerateDeviceLayerProperties(VkPhysicalDevice pd, uint32_t *pCount,
                                                                VkLayerProperties *out) {
    return layer_EnumerateInstanceLayerProperties(pCount, out);
}

static VkResult VKAPI_CALL layer_GetPhysicalDeviceSurfaceSupportKHR(VkPhysicalDevice pd, uint32_t family,
                                                                    VkSurfaceKHR surface, VkBool32 *pSupported) {
    mock_log(&g_log, "vkGetPhysicalDeviceSurfaceSupportKHR physicalDevice=%p family=%u surface=0x%llx", (void *)pd,
             family, (unsigned long long)surface);
    if (as_fake(pd)) {
        *pSupported = VK_FALSE;
        return VK_SUCCESS;
    }
    PFN_vkGetPhysicalDeviceSurfaceSupportKHR next = NEXT_I(pd, vkGetPhysicalDeviceSurfaceSupportKHR, 0);
    return next ? next(pd, family, surface, pSupported) : VK_ERROR_INITIALIZATION_FAILED;
}

/* ----------------------------------------------------------------------------------------- layer extensions */

static uint32_t VKAPI_CALL layer_MockLayerInstanceFn(VkInstance instance, uint32_t x) {
    uint32_t r = g_config.function_base + x;
    mock_log(&g_log, "vkMockLayerInstanceFn instance=%p x=%u result=%u", (void *)instance, x, r);
    return r;
}

static uint32_t VKAPI_CALL layer_MockLayerPhysicalDeviceFn(VkPhysicalDevice pd, uint32_t x) {
    uint32_t r = g_config.function_base + 0x100 + x;
    mock_log(&g_log, "vkMockLayerPhysicalDeviceFn physicalDevice=%p x=%u result=%u", (void *)pd, x, r);
    return r;
}

static uint32_t VKAPI_CALL layer_MockLayerDeviceFn(VkDevice device, uint32_t x) {
    uint32_t r = g_config.function_base + 0x200 + x;
    mock_log(&g_log, "vkMockLayerDeviceFn device=%p x=%u result=%u", (void *)device, x, r);
    return r;
}

/* ----------------------------------------------------------------------------------------- device */

static PFN_vkVoidFunction VKAPI_CALL layer_GetInstanceProcAddr(VkInstance instance, const char *name);
static PFN_vkVoidFunction VKAPI_CALL layer_GetDeviceProcAddr(VkDevice device, const char *name);

static VkResult VKAPI_CALL layer_CreateDevice(VkPhysicalDevice pd, const VkDeviceCreateInfo *ci,
                                              const VkAllocationCallbacks *a, VkDevice *pDevice) {
    char exts[8192], chain[128];
    mock_join(exts, sizeof exts, ci->enabledExtensionCount, ci->ppEnabledExtensionNames);
    describe_chain(chain, sizeof chain, ci->pNext);
    InstanceRecord *inst = instance_record(pd);
    int callback = g_config.create_device_callback && inst && inst->layer_create_device;
    VkResult injected = (VkResult)g_config.create_device_result;
    mock_log(&g_log, "vkCreateDevice physicalDevice=%p exts=%s chain=%s%s%s", (void *)pd, exts, chain,
             callback ? " via=callback" : "", injected ? " why=injected" : "");
    if (injected) return injected;
    if (as_fake(pd)) return VK_ERROR_INITIALIZATION_FAILED;
    VkLayerDeviceCreateInfo *link = find_chain(ci->pNext, VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO, VK_LAYER_LINK_INFO);
    VkLayerDeviceCreateInfo *data = find_chain(ci->pNext, VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO, VK_LOADER_DATA_CALLBACK);
    PFN_vkGetDeviceProcAddr next_gdpa = NULL;
    VkDevice device = VK_NULL_HANDLE;
    VkResult result;
    if (callback) {
        /* the loader builds the rest of the chain below this layer and hands back its GetDeviceProcAddr */
        result = inst->layer_create_device(inst->instance, pd, ci, a, pDevice, layer_GetInstanceProcAddr, &next_gdpa);
    } else {
        if (!link || !link->u.pLayerInfo) return VK_ERROR_INITIALIZATION_FAILED;
        PFN_vkGetInstanceProcAddr next_gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
        next_gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
        /* NULL is the old-layer form the loader keeps working (LI07); loaders before ~1.3.250 crash on it */
        VkInstance query = g_config.create_device_null_instance || !inst ? VK_NULL_HANDLE : inst->instance;
        PFN_vkCreateDevice next_create = (PFN_vkCreateDevice)next_gipa(query, "vkCreateDevice");
        if (!next_create) return VK_ERROR_INITIALIZATION_FAILED;
        link->u.pLayerInfo = link->u.pLayerInfo->pNext;
        /* pDevice itself goes down: the Khronos terminator reads its loader device from *pDevice */
        result = next_create(pd, ci, a, pDevice);
    }
    if (result != VK_SUCCESS) return result;
    device = *pDevice;
    DeviceRecord *r = calloc(1, sizeof *r);
    if (!r) return VK_ERROR_OUT_OF_HOST_MEMORY;
    r->device = device;
    r->instance = inst;
    r->next_gdpa = next_gdpa;
    r->via_callback = callback;
    for (size_t i = 0; next_gdpa && i < COUNT_OF(DEVICE_NEXT_NAMES); i++) r->table[i] = next_gdpa(device, DEVICE_NEXT_NAMES[i]);
    if (data) r->set_loader_data = data->u.pfnSetDeviceLoaderData;
    *pDevice = device;
    if (g_config.wrap_device) {
        r->wrapper = calloc(1, sizeof *r->wrapper);
        if (!r->wrapper) {
            free(r);
            return VK_ERROR_OUT_OF_HOST_MEMORY;
        }
        r->wrapper->loader_data = dispatch_key(device); /* the loader stamps its own pointer over this */
        r->wrapper->record = r;
        *pDevice = (VkDevice)r->wrapper;
    }
    pthread_mutex_lock(&g_mutex);
    r->next = g_devices;
    g_devices = r;
    pthread_mutex_unlock(&g_mutex);
    mock_log(&g_log, "vkCreateDevice.done device=%p down=%p", (void *)*pDevice, (void *)device);
    return VK_SUCCESS;
}

static void VKAPI_CALL layer_DestroyDevice(VkDevice device, const VkAllocationCallbacks *a) {
    mock_log(&g_log, "vkDestroyDevice device=%p", (void *)device);
    DeviceRecord *r = device_record(device);
    if (!r) return;
    PFN_vkDestroyDevice next = (PFN_vkDestroyDevice)r->table[0];
    if (r->via_callback && r->instance && r->instance->layer_destroy_device)
        r->instance->layer_destroy_device(r->device, a, next);
    else if (next)
        next(r->device, a);
    pthread_mutex_lock(&g_mutex);
    for (DeviceRecord **p = &g_devices; *p; p = &(*p)->next) {
        if (*p == r) {
            *p = r->next;
            break;
        }
    }
    pthread_mutex_unlock(&g_mutex);
    for (CommandBufferWrapper *w = r->command_buffers; w;) {
        CommandBufferWrapper *next_w = w->next;
        free(w);
        w = next_w;
    }
    free(r->wrapper);
    free(r);
}

static void VKAPI_CALL layer_GetDeviceQueue(VkDevice device, uint32_t family, uint32_t index, VkQueue *pQueue) {
    mock_log(&g_log, "vkGetDeviceQueue device=%p family=%u index=%u", (void *)device, family, index);
    PFN_vkGetDeviceQueue next = NEXT_D(device, vkGetDeviceQueue);
    if (next) next(unwrap_device(device), family, index, pQueue);
}

static void VKAPI_CALL layer_GetDeviceQueue2(VkDevice device, const VkDeviceQueueInfo2 *info, VkQueue *pQueue) {
    mock_log(&g_log, "vkGetDeviceQueue2 device=%p family=%u index=%u", (void *)device, info->queueFamilyIndex,
             info->queueIndex);
    PFN_vkGetDeviceQueue2 next = NEXT_D(device, vkGetDeviceQueue2);
    if (next) next(unwrap_device(device), info, pQueue);
}

static VkResult VKAPI_CALL layer_QueueWaitIdle(VkQueue queue) {
    mock_log(&g_log, "vkQueueWaitIdle queue=%p", (void *)queue);
    PFN_vkQueueWaitIdle next = NEXT_D(queue, vkQueueWaitIdle);
    return next ? next(queue) : VK_ERROR_INITIALIZATION_FAILED;
}

static VkResult VKAPI_CALL layer_DeviceWaitIdle(VkDevice device) {
    mock_log(&g_log, "vkDeviceWaitIdle device=%p", (void *)device);
    PFN_vkDeviceWaitIdle next = NEXT_D(device, vkDeviceWaitIdle);
    return next ? next(unwrap_device(device)) : VK_ERROR_INITIALIZATION_FAILED;
}

static VkResult VKAPI_CALL layer_CreateCommandPool(VkDevice device, const VkCommandPoolCreateInfo *ci,
                                                   const VkAllocationCallbacks *a, VkCommandPool *pPool) {
    mock_log(&g_log, "vkCreateCommandPool device=%p family=%u", (void *)device, ci->queueFamilyIndex);
    PFN_vkCreateCommandPool next = NEXT_D(device, vkCreateCommandPool);
    return next ? next(unwrap_device(device), ci, a, pPool) : VK_ERROR_INITIALIZATION_FAILED;
}

static void VKAPI_CALL layer_DestroyCommandPool(VkDevice device, VkCommandPool pool, const VkAllocationCallbacks *a) {
    mock_log(&g_log, "vkDestroyCommandPool device=%p pool=0x%llx", (void *)device, (unsigned long long)pool);
    PFN_vkDestroyCommandPool next = NEXT_D(device, vkDestroyCommandPool);
    if (next) next(unwrap_device(device), pool, a);
}

static VkResult VKAPI_CALL layer_AllocateCommandBuffers(VkDevice device, const VkCommandBufferAllocateInfo *info,
                                                        VkCommandBuffer *out) {
    mock_log(&g_log, "vkAllocateCommandBuffers device=%p count=%u%s", (void *)device, info->commandBufferCount,
             g_config.wrap_command_buffers ? " wrap=1" : "");
    DeviceRecord *r = device_record(device);
    PFN_vkAllocateCommandBuffers next = NEXT_D(device, vkAllocateCommandBuffers);
    if (!next || !r) return VK_ERROR_INITIALIZATION_FAILED;
    VkResult result = next(r->device, info, out);
    if (result != VK_SUCCESS || !g_config.wrap_command_buffers) return result;
    for (uint32_t i = 0; i < info->commandBufferCount; i++) {
        CommandBufferWrapper *w = calloc(1, sizeof *w);
        if (!w) return VK_ERROR_OUT_OF_HOST_MEMORY;
        w->real = out[i];
        /* a layer-made dispatchable object: the loader's callback writes its dispatch pointer */
        if (r->set_loader_data) r->set_loader_data(device, w);
        else w->loader_data = dispatch_key(device);
        pthread_mutex_lock(&g_mutex);
        w->next = r->command_buffers;
        r->command_buffers = w;
        pthread_mutex_unlock(&g_mutex);
        out[i] = (VkCommandBuffer)w;
    }
    return VK_SUCCESS;
}

static void VKAPI_CALL layer_FreeCommandBuffers(VkDevice device, VkCommandPool pool, uint32_t count,
                                                const VkCommandBuffer *buffers) {
    mock_log(&g_log, "vkFreeCommandBuffers device=%p count=%u", (void *)device, count);
    DeviceRecord *r = device_record(device);
    PFN_vkFreeCommandBuffers next = NEXT_D(device, vkFreeCommandBuffers);
    if (!next || !r) return;
    VkCommandBuffer *real = calloc(count ? count : 1, sizeof *real);
    if (!real) return;
    for (uint32_t i = 0; i < count; i++) {
        real[i] = unwrap_command_buffer(buffers[i]);
        pthread_mutex_lock(&g_mutex);
        for (CommandBufferWrapper **p = &r->command_buffers; *p; p = &(*p)->next) {
            if ((void *)*p == (void *)buffers[i]) {
                CommandBufferWrapper *dead = *p;
                *p = dead->next;
                free(dead);
                break;
            }
        }
        pthread_mutex_unlock(&g_mutex);
    }
    next(r->device, pool, count, real);
    free(real);
}

static VkResult VKAPI_CALL layer_BeginCommandBuffer(VkCommandBuffer cb, const VkCommandBufferBeginInfo *info) {
    mock_log(&g_log, "vkBeginCommandBuffer commandBuffer=%p", (void *)cb);
    PFN_vkBeginCommandBuffer next = NEXT_D(cb, vkBeginCommandBuffer);
    return next ? next(unwrap_command_buffer(cb), info) : VK_ERROR_INITIALIZATION_FAILED;
}

static VkResult VKAPI_CALL layer_EndCommandBuffer(VkCommandBuffer cb) {
    mock_log(&g_log, "vkEndCommandBuffer commandBuffer=%p", (void *)cb);
    PFN_vkEndCommandBuffer next = NEXT_D(cb, vkEndCommandBuffer);
    return next ? next(unwrap_command_buffer(cb)) : VK_ERROR_INITIALIZATION_FAILED;
}

static void VKAPI_CALL layer_CmdSetLineWidth(VkCommandBuffer cb, float width) {
    mock_log(&g_log, "vkCmdSetLineWidth commandBuffer=%p lineWidth=%g", (void *)cb, (double)width);
    PFN_vkCmdSetLineWidth next = NEXT_D(cb, vkCmdSetLineWidth);
    if (next) next(unwrap_command_buffer(cb), width);
}

static void VKAPI_CALL layer_CmdDraw(VkCommandBuffer cb, uint32_t vertexCount, uint32_t instanceCount,
                                     uint32_t firstVertex, uint32_t firstInstance) {
    mock_log(&g_log, "vkCmdDraw commandBuffer=%p vertexCount=%u", (void *)cb, vertexCount);
    PFN_vkCmdDraw next = NEXT_D(cb, vkCmdDraw);
    if (next) next(unwrap_command_buffer(cb), vertexCount, instanceCount, firstVertex, firstInstance);
}

static VkResult VKAPI_CALL layer_CreateSwapchainKHR(VkDevice device, const VkSwapchainCreateInfoKHR *ci,
                                                    const VkAllocationCallbacks *a, VkSwapchainKHR *pSwapchain) {
    mock_log(&g_log, "vkCreateSwapchainKHR device=%p surface=0x%llx", (void *)device, (unsigned long long)ci->surface);
    PFN_vkCreateSwapchainKHR next = NEXT_D(device, vkCreateSwapchainKHR);
    return next ? next(unwrap_device(device), ci, a, pSwapchain) : VK_ERROR_INITIALIZATION_FAILED;
}

static void VKAPI_CALL layer_DestroySwapchainKHR(VkDevice device, VkSwapchainKHR swapchain,
                                                 const VkAllocationCallbacks *a) {
    mock_log(&g_log, "vkDestroySwapchainKHR device=%p", (void *)device);
    PFN_vkDestroySwapchainKHR next = NEXT_D(device, vkDestroySwapchainKHR);
    if (next) next(unwrap_device(device), swapchain, a);
}

/* ----------------------------------------------------------------------------------------- proc addr */

typedef struct Entry {
    const char *name;
    PFN_vkVoidFunction fn;
} Entry;

#define E(name) {"vk" #name, (PFN_vkVoidFunction)layer_##name}

static const Entry PHYSICAL_DEVICE_ENTRIES[] = {
    E(GetPhysicalDeviceProperties),
    E(GetPhysicalDeviceProperties2),
    {"vkGetPhysicalDeviceProperties2KHR", (PFN_vkVoidFunction)layer_GetPhysicalDeviceProperties2},
    E(GetPhysicalDeviceFeatures),
    E(GetPhysicalDeviceQueueFamilyProperties),
    E(GetPhysicalDeviceMemoryProperties),
    E(EnumerateDeviceExtensionProperties),
    E(GetPhysicalDeviceSurfaceSupportKHR),
};

static const Entry INSTANCE_ENTRIES[] = {
    E(EnumeratePhysicalDevices),
    E(EnumeratePhysicalDeviceGroups),
    {"vkEnumeratePhysicalDeviceGroupsKHR", (PFN_vkVoidFunction)layer_EnumeratePhysicalDeviceGroups},
};

static const Entry DEVICE_ENTRIES[] = {
    E(GetDeviceQueue),        E(GetDeviceQueue2),       E(QueueWaitIdle),      E(DeviceWaitIdle),
    E(CreateCommandPool),     E(DestroyCommandPool),    E(AllocateCommandBuffers), E(FreeCommandBuffers),
    E(BeginCommandBuffer),    E(EndCommandBuffer),      E(CmdSetLineWidth),    E(CmdDraw),
    E(CreateSwapchainKHR),    E(DestroySwapchainKHR),
};

static const char *const COMMAND_BUFFER_FNS[] = {"vkAllocateCommandBuffers", "vkFreeCommandBuffers",
                                                 "vkBeginCommandBuffer", "vkEndCommandBuffer",
                                                 "vkCmdSetLineWidth", "vkCmdDraw"};

#undef E

static PFN_vkVoidFunction lookup(const Entry *entries, size_t count, const char *name) {
    for (size_t i = 0; i < count; i++)
        if (strcmp(entries[i].name, name) == 0) return entries[i].fn;
    return NULL;
}

#define LOOKUP(table, name) lookup(table, sizeof table / sizeof table[0], name)

/* Device functions this layer must see: intercepted ones, and all of them when it wraps handles. */
static PFN_vkVoidFunction own_device_fn(const char *name) {
    if (strcmp(name, "vkGetDeviceProcAddr") == 0) return (PFN_vkVoidFunction)layer_GetDeviceProcAddr;
    if (strcmp(name, "vkDestroyDevice") == 0) return (PFN_vkVoidFunction)layer_DestroyDevice;
    if (mock_has_name(g_config.device_entrypoints, g_config.device_entrypoint_count, name) &&
        strcmp(name, "vkMockLayerDeviceFn") == 0)
        return (PFN_vkVoidFunction)layer_MockLayerDeviceFn;
    int forced = g_config.wrap_device;
    for (size_t i = 0; !forced && g_config.wrap_command_buffers && i < sizeof COMMAND_BUFFER_FNS / sizeof COMMAND_BUFFER_FNS[0]; i++)
        if (strcmp(COMMAND_BUFFER_FNS[i], name) == 0) forced = 1;
    if (!forced && !intercepts(name)) return NULL;
    return LOOKUP(DEVICE_ENTRIES, name);
}

static PFN_vkVoidFunction own_physical_device_fn(const char *name) {
    if (mock_has_name(g_config.instance_entrypoints, g_config.instance_entrypoint_count, name) &&
        strcmp(name, "vkMockLayerPhysicalDeviceFn") == 0)
        return (PFN_vkVoidFunction)layer_MockLayerPhysicalDeviceFn;
    if (!g_config.add_physical_devices && !intercepts(name)) return NULL;
    return LOOKUP(PHYSICAL_DEVICE_ENTRIES, name);
}

static PFN_vkVoidFunction VKAPI_CALL layer_GetDeviceProcAddr(VkDevice device, const char *name) {
    ensure_config();
    PFN_vkVoidFunction fn = own_device_fn(name);
    if (fn) return fn;
    DeviceRecord *r = device_record(device);
    return r && r->next_gdpa ? r->next_gdpa(r->device, name) : NULL;
}

static PFN_vkVoidFunction VKAPI_CALL layer_GetPhysicalDeviceProcAddr(VkInstance instance, const char *name) {
    ensure_config();
    PFN_vkVoidFunction fn = own_physical_device_fn(name);
    if (fn) return fn;
    InstanceRecord *r = instance_record(instance);
    return r && r->next_gpdpa ? r->next_gpdpa(r->instance, name) : NULL;
}

static PFN_vkVoidFunction VKAPI_CALL layer_GetInstanceProcAddr(VkInstance instance, const char *name) {
    ensure_config();
    if (strcmp(name, "vkGetInstanceProcAddr") == 0) return (PFN_vkVoidFunction)layer_GetInstanceProcAddr;
    if (strcmp(name, "vkCreateInstance") == 0) return (PFN_vkVoidFunction)layer_CreateInstance;
    if (strcmp(name, "vkDestroyInstance") == 0) return (PFN_vkVoidFunction)layer_DestroyInstance;
    if (strcmp(name, "vkCreateDevice") == 0) return (PFN_vkVoidFunction)layer_CreateDevice;
    if (strcmp(name, "vkEnumerateInstanceLayerProperties") == 0)
        return (PFN_vkVoidFunction)layer_EnumerateInstanceLayerProperties;
    if (strcmp(name, "vkEnumerateInstanceExtensionProperties") == 0)
        return (PFN_vkVoidFunction)layer_EnumerateInstanceExtensionProperties;
    if (strcmp(name, "vkEnumerateDeviceLayerProperties") == 0)
        return (PFN_vkVoidFunction)layer_EnumerateDeviceLayerProperties;
    if (mock_has_name(g_config.instance_entrypoints, g_config.instance_entrypoint_count, name) &&
        strcmp(name, "vkMockLayerInstanceFn") == 0)
        return (PFN_vkVoidFunction)layer_MockLayerInstanceFn;
    PFN_vkVoidFunction fn = NULL;
    if ((reshapes_physical_devices() || intercepts(name)) && (fn = LOOKUP(INSTANCE_ENTRIES, name))) return fn;
    if ((fn = own_physical_device_fn(name))) return fn;
    if ((fn = own_device_fn(name))) return fn;
    if (instance == VK_NULL_HANDLE) return NULL;
    InstanceRecord *r = instance_record(instance);
    return r && r->next_gipa ? r->next_gipa(r->instance, name) : NULL;
}

static VkResult VKAPI_CALL layer_NegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface *p) {
    ensure_config();
    uint32_t offered = p->loaderLayerInterfaceVersion;
    VkResult result = (VkResult)g_config.negotiate_result;
    if (!result && p->sType != LAYER_NEGOTIATE_INTERFACE_STRUCT) result = VK_ERROR_INITIALIZATION_FAILED;
    if (!result) {
        uint32_t v = offered < g_config.interface_version ? offered : g_config.interface_version;
        if (g_config.negotiate_answer) v = g_config.negotiate_answer;
        p->loaderLayerInterfaceVersion = v;
        if (v >= 2) {
            p->pfnGetInstanceProcAddr = layer_GetInstanceProcAddr;
            p->pfnGetDeviceProcAddr = layer_GetDeviceProcAddr;
            p->pfnGetPhysicalDeviceProcAddr = layer_GetPhysicalDeviceProcAddr;
        }
    }
    mock_log(&g_log, "vkNegotiateLoaderLayerInterfaceVersion offered=%u returned=%u result=%d", offered,
             p->loaderLayerInterfaceVersion, (int)result);
    return result;
}

/* ----------------------------------------------------------------------------------------- pre-instance */

MOCK_EXPORT VkResult VKAPI_CALL MockLayer_PreEnumerateInstanceExtensionProperties(
    const VkEnumerateInstanceExtensionPropertiesChain *chain, const char *pLayerName, uint32_t *pCount,
    VkExtensionProperties *out) {
    ensure_config();
    mock_log(&g_log, "pre:vkEnumerateInstanceExtensionProperties layer=%s", pLayerName ? pLayerName : "NULL");
    int add = !pLayerName && g_config.pre_instance_extension[0];
    uint32_t cap = out ? *pCount : 0;
    VkResult result = chain->pfnNextLayer(chain->pNextLink, pLayerName, pCount, out);
    if (!add || result < 0) return result;
    if (!out) {
        (*pCount)++;
        return result;
    }
    if (result != VK_SUCCESS || *pCount >= cap) return VK_INCOMPLETE;
    memset(&out[*pCount], 0, sizeof out[0]);
    snprintf(out[*pCount].extensionName, sizeof out[0].extensionName, "%s", g_config.pre_instance_extension);
    out[*pCount].specVersion = 1;
    (*pCount)++;
    return VK_SUCCESS;
}

MOCK_EXPORT VkResult VKAPI_CALL MockLayer_PreEnumerateInstanceLayerProperties(
    const VkEnumerateInstanceLayerPropertiesChain *chain, uint32_t *pCount, VkLayerProperties *out) {
    ensure_config();
    mock_log(&g_log, "pre:vkEnumerateInstanceLayerProperties");
    return chain->pfnNextLayer(chain->pNextLink, pCount, out);
}

MOCK_EXPORT VkResult VKAPI_CALL MockLayer_PreEnumerateInstanceVersion(const VkEnumerateInstanceVersionChain *chain,
                                                                      uint32_t *pApiVersion) {
    ensure_config();
    mock_log(&g_log, "pre:vkEnumerateInstanceVersion");
    if (g_config.pre_instance_version) {
        *pApiVersion = g_config.pre_instance_version;
        return VK_SUCCESS;
    }
    return chain->pfnNextLayer(chain->pNextLink, pApiVersion);
}

/* ----------------------------------------------------------------------------------------- exports */

#if defined(MOCK_LAYER_VARIANT_STANDARD)
MOCK_EXPORT VkResult VKAPI_CALL vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface *p) {
    return layer_NegotiateLoaderLayerInterfaceVersion(p);
}
MOCK_EXPORT PFN_vkVoidFunction VKAPI_CALL vk_layerGetPhysicalDeviceProcAddr(VkInstance instance, const char *name) {
    return layer_GetPhysicalDeviceProcAddr(instance, name);
}
#endif

#if defined(MOCK_LAYER_VARIANT_STANDARD) || defined(MOCK_LAYER_VARIANT_NONEGO)
MOCK_EXPORT PFN_vkVoidFunction VKAPI_CALL vkGetInstanceProcAddr(VkInstance instance, const char *name) {
    return layer_GetInstanceProcAddr(instance, name);
}
MOCK_EXPORT PFN_vkVoidFunction VKAPI_CALL vkGetDeviceProcAddr(VkDevice device, const char *name) {
    return layer_GetDeviceProcAddr(device, name);
}
#endif

#if defined(MOCK_LAYER_VARIANT_RENAMED)
MOCK_EXPORT VkResult VKAPI_CALL MockLayer_NegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface *p) {
    return layer_NegotiateLoaderLayerInterfaceVersion(p);
}
MOCK_EXPORT PFN_vkVoidFunction VKAPI_CALL MockLayer_GetInstanceProcAddr(VkInstance instance, const char *name) {
    return layer_GetInstanceProcAddr(instance, name);
}
MOCK_EXPORT PFN_vkVoidFunction VKAPI_CALL MockLayer_GetDeviceProcAddr(VkDevice device, const char *name) {
    return layer_GetDeviceProcAddr(device, name);
}
#endif

#if defined(MOCK_LAYER_VARIANT_NONEGO)
/* interface 0/1 layers never negotiate; keep the function referenced so the build stays warning-free */
__attribute__((used)) static void *const keep_negotiate = (void *)layer_NegotiateLoaderLayerInterfaceVersion;
#endif

__attribute__((destructor)) static void mock_layer_unload(void) { mock_log_free(&g_log); }
