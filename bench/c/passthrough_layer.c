/*
 * A minimal pass-through layer for the benchmarks: it intercepts vkGetDeviceQueue and vkCmdSetLineWidth
 * and calls the next link, the way real layers do (per-device data found from the dispatch key, the
 * first word of the handle), and nothing else. The test suite's mock layer logs every call, which would
 * measure its logging rather than the chain. Each copy of the library (one file per layer) has its own
 * globals, so several copies stack in one chain.
 *
 * The lookup costs the same for every device, whatever the order they were made in (the benchmarks
 * compare devices of two loaders through the same layer copies): a one-entry cache of the last device
 * found, then a hash table keyed by the dispatch key, as real layers key their maps.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#define EXPORT __attribute__((visibility("default")))
#define MAX_OBJECTS 256 /* a power of two: hash table slots */

typedef struct {
    void *key;
    VkInstance instance;
    PFN_vkGetInstanceProcAddr gipa;
    PFN_vkDestroyInstance destroy;
} InstanceData;

typedef struct {
    void *key;
    VkDevice device;
    PFN_vkGetDeviceProcAddr gdpa;
    PFN_vkDestroyDevice destroy;
    PFN_vkGetDeviceQueue getDeviceQueue;
    PFN_vkCmdSetLineWidth cmdSetLineWidth;
} DeviceData;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static InstanceData g_instances[MAX_OBJECTS];
static DeviceData g_devices[MAX_OBJECTS];
static DeviceData *g_last_device;
static VkInstance g_last_instance;

static void *dispatch_key(const void *handle) { return *(void *const *)handle; }

static unsigned slot_of(const void *key) {
    return (unsigned)(((uintptr_t)key >> 4) * 0x9E3779B97F4A7C15ull >> 56) & (MAX_OBJECTS - 1);
}

static InstanceData *instance_data(const void *handle) {
    void *key = dispatch_key(handle);
    for (int i = 0; i < MAX_OBJECTS; i++)
        if (g_instances[i].key == key) return &g_instances[i];
    return NULL;
}

static DeviceData *find_device(void *key) {
    for (unsigned n = 0, i = slot_of(key); n < MAX_OBJECTS; n++, i = (i + 1) & (MAX_OBJECTS - 1)) {
        if (g_devices[i].key == key && g_devices[i].device) return &g_devices[i];
        if (!g_devices[i].device) return NULL;
    }
    return NULL;
}

/* Adds a device under its key (the lock is held). */
static DeviceData *add_device(void *key) {
    for (unsigned n = 0, i = slot_of(key); n < MAX_OBJECTS; n++, i = (i + 1) & (MAX_OBJECTS - 1))
        if (!g_devices[i].device) return &g_devices[i];
    fprintf(stderr, "passthrough_layer: too many devices\n");
    abort();
}

static DeviceData *device_data(const void *handle) {
    void *key = dispatch_key(handle);
    DeviceData *last = __atomic_load_n(&g_last_device, __ATOMIC_RELAXED);
    if (last && last->key == key) return last;
    DeviceData *d = find_device(key);
    if (!d) {
        fprintf(stderr, "passthrough_layer: unknown dispatch key %p\n", key);
        abort();
    }
    __atomic_store_n(&g_last_device, d, __ATOMIC_RELAXED);
    return d;
}

static void VKAPI_CALL layer_GetDeviceQueue(VkDevice device, uint32_t family, uint32_t index, VkQueue *pQueue) {
    device_data(device)->getDeviceQueue(device, family, index, pQueue);
}

static void VKAPI_CALL layer_CmdSetLineWidth(VkCommandBuffer cb, float width) {
    device_data(cb)->cmdSetLineWidth(cb, width);
}

#ifdef NULL_COMMANDS
/* bench/c/null_layer.c: a frame's recording commands end here, as if a driver recorded them for free. */
static void VKAPI_CALL null_CmdBindDescriptorSets(VkCommandBuffer cb, VkPipelineBindPoint bp, VkPipelineLayout l,
                                                  uint32_t first, uint32_t n, const VkDescriptorSet *sets,
                                                  uint32_t nOffsets, const uint32_t *offsets) {}
static void VKAPI_CALL null_CmdPushConstants(VkCommandBuffer cb, VkPipelineLayout l, VkShaderStageFlags stages,
                                             uint32_t offset, uint32_t size, const void *values) {}
static void VKAPI_CALL null_CmdSetViewport(VkCommandBuffer cb, uint32_t first, uint32_t n, const VkViewport *v) {}
static void VKAPI_CALL null_CmdSetScissor(VkCommandBuffer cb, uint32_t first, uint32_t n, const VkRect2D *r) {}
static void VKAPI_CALL null_CmdDraw(VkCommandBuffer cb, uint32_t vertices, uint32_t instances, uint32_t firstVertex,
                                    uint32_t firstInstance) {}
static void VKAPI_CALL null_CmdPipelineBarrier2(VkCommandBuffer cb, const VkDependencyInfo *info) {}

static PFN_vkVoidFunction null_command(const char *name) {
    if (!strcmp(name, "vkCmdBindDescriptorSets")) return (PFN_vkVoidFunction)null_CmdBindDescriptorSets;
    if (!strcmp(name, "vkCmdPushConstants")) return (PFN_vkVoidFunction)null_CmdPushConstants;
    if (!strcmp(name, "vkCmdSetViewport")) return (PFN_vkVoidFunction)null_CmdSetViewport;
    if (!strcmp(name, "vkCmdSetScissor")) return (PFN_vkVoidFunction)null_CmdSetScissor;
    if (!strcmp(name, "vkCmdDraw")) return (PFN_vkVoidFunction)null_CmdDraw;
    if (!strcmp(name, "vkCmdPipelineBarrier2")) return (PFN_vkVoidFunction)null_CmdPipelineBarrier2;
    return NULL;
}
#else
static PFN_vkVoidFunction null_command(const char *name) { return NULL; }
#endif

static VkResult VKAPI_CALL layer_CreateInstance(const VkInstanceCreateInfo *info, const VkAllocationCallbacks *alloc,
                                                VkInstance *pInstance) {
    VkLayerInstanceCreateInfo *link = (VkLayerInstanceCreateInfo *)info->pNext;
    while (link && !(link->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO && link->function == VK_LAYER_LINK_INFO))
        link = (VkLayerInstanceCreateInfo *)link->pNext;
    if (!link) return VK_ERROR_INITIALIZATION_FAILED;
    PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    link->u.pLayerInfo = link->u.pLayerInfo->pNext;
    PFN_vkCreateInstance create = (PFN_vkCreateInstance)gipa(NULL, "vkCreateInstance");
    VkResult result = create(info, alloc, pInstance);
    if (result != VK_SUCCESS) return result;
    pthread_mutex_lock(&g_lock);
    for (int i = 0; i < MAX_OBJECTS; i++) {
        if (g_instances[i].instance) continue;
        g_instances[i] = (InstanceData){dispatch_key(*pInstance), *pInstance, gipa,
                                        (PFN_vkDestroyInstance)gipa(*pInstance, "vkDestroyInstance")};
        break;
    }
    g_last_instance = *pInstance;
    pthread_mutex_unlock(&g_lock);
    return VK_SUCCESS;
}

static void VKAPI_CALL layer_DestroyInstance(VkInstance instance, const VkAllocationCallbacks *alloc) {
    InstanceData *d = instance_data(instance);
    if (!d) return;
    PFN_vkDestroyInstance destroy = d->destroy;
    pthread_mutex_lock(&g_lock);
    memset(d, 0, sizeof *d);
    pthread_mutex_unlock(&g_lock);
    destroy(instance, alloc);
}

static VkResult VKAPI_CALL layer_CreateDevice(VkPhysicalDevice physicalDevice, const VkDeviceCreateInfo *info,
                                              const VkAllocationCallbacks *alloc, VkDevice *pDevice) {
    VkLayerDeviceCreateInfo *link = (VkLayerDeviceCreateInfo *)info->pNext;
    while (link && !(link->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO && link->function == VK_LAYER_LINK_INFO))
        link = (VkLayerDeviceCreateInfo *)link->pNext;
    if (!link) return VK_ERROR_INITIALIZATION_FAILED;
    PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    PFN_vkGetDeviceProcAddr gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
    link->u.pLayerInfo = link->u.pLayerInfo->pNext;
    InstanceData *inst = instance_data(physicalDevice);
    PFN_vkCreateDevice create =
        (PFN_vkCreateDevice)gipa(inst ? inst->instance : g_last_instance, "vkCreateDevice");
    VkResult result = create(physicalDevice, info, alloc, pDevice);
    if (result != VK_SUCCESS) return result;
    /* Both loaders stamp their dispatch word into the device before the chain returns (the layer docs):
       the key is final here. */
    void *key = dispatch_key(*pDevice);
    pthread_mutex_lock(&g_lock);
    *add_device(key) = (DeviceData){
        key,
        *pDevice,
        gdpa,
        (PFN_vkDestroyDevice)gdpa(*pDevice, "vkDestroyDevice"),
        (PFN_vkGetDeviceQueue)gdpa(*pDevice, "vkGetDeviceQueue"),
        (PFN_vkCmdSetLineWidth)gdpa(*pDevice, "vkCmdSetLineWidth"),
    };
    pthread_mutex_unlock(&g_lock);
    return VK_SUCCESS;
}

/* Removes a device, moving later entries of its probe run back so that lookups still find them. */
static void remove_device(DeviceData *d) {
    unsigned i = (unsigned)(d - g_devices);
    memset(d, 0, sizeof *d);
    for (unsigned j = (i + 1) & (MAX_OBJECTS - 1); g_devices[j].device; j = (j + 1) & (MAX_OBJECTS - 1)) {
        DeviceData moved = g_devices[j];
        memset(&g_devices[j], 0, sizeof moved);
        *add_device(moved.key) = moved;
    }
}

static void VKAPI_CALL layer_DestroyDevice(VkDevice device, const VkAllocationCallbacks *alloc) {
    DeviceData *d = device_data(device);
    PFN_vkDestroyDevice destroy = d->destroy;
    pthread_mutex_lock(&g_lock);
    __atomic_store_n(&g_last_device, NULL, __ATOMIC_RELAXED);
    remove_device(d);
    pthread_mutex_unlock(&g_lock);
    destroy(device, alloc);
}

EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetDeviceProcAddr(VkDevice device, const char *name);

EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetInstanceProcAddr(VkInstance instance, const char *name) {
    if (!strcmp(name, "vkGetInstanceProcAddr")) return (PFN_vkVoidFunction)vkGetInstanceProcAddr;
    if (!strcmp(name, "vkCreateInstance")) return (PFN_vkVoidFunction)layer_CreateInstance;
    if (!strcmp(name, "vkDestroyInstance")) return (PFN_vkVoidFunction)layer_DestroyInstance;
    if (!strcmp(name, "vkCreateDevice")) return (PFN_vkVoidFunction)layer_CreateDevice;
    if (!strcmp(name, "vkGetDeviceProcAddr")) return (PFN_vkVoidFunction)vkGetDeviceProcAddr;
    if (!strcmp(name, "vkDestroyDevice")) return (PFN_vkVoidFunction)layer_DestroyDevice;
    if (!strcmp(name, "vkGetDeviceQueue")) return (PFN_vkVoidFunction)layer_GetDeviceQueue;
    if (!strcmp(name, "vkCmdSetLineWidth")) return (PFN_vkVoidFunction)layer_CmdSetLineWidth;
    if (null_command(name)) return null_command(name);
    if (!instance) return NULL;
    InstanceData *d = instance_data(instance);
    return d ? d->gipa(instance, name) : NULL;
}

EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetDeviceProcAddr(VkDevice device, const char *name) {
    if (!strcmp(name, "vkGetDeviceProcAddr")) return (PFN_vkVoidFunction)vkGetDeviceProcAddr;
    if (!strcmp(name, "vkDestroyDevice")) return (PFN_vkVoidFunction)layer_DestroyDevice;
    if (!strcmp(name, "vkGetDeviceQueue")) return (PFN_vkVoidFunction)layer_GetDeviceQueue;
    if (!strcmp(name, "vkCmdSetLineWidth")) return (PFN_vkVoidFunction)layer_CmdSetLineWidth;
    if (null_command(name)) return null_command(name);
    return device_data(device)->gdpa(device, name);
}

EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface *v) {
    if (v->loaderLayerInterfaceVersion > 2) v->loaderLayerInterfaceVersion = 2;
    v->pfnGetInstanceProcAddr = vkGetInstanceProcAddr;
    v->pfnGetDeviceProcAddr = vkGetDeviceProcAddr;
    v->pfnGetPhysicalDeviceProcAddr = NULL;
    return VK_SUCCESS;
}
