/*
 * A faulty Vulkan layer for the reliability fault catalogue: a pass-through layer (one instance and one
 * device at a time) whose fault comes from `mode=` in `<own path>.conf` (found through dladdr):
 *   mode=pass              behaves
 *   mode=no_call_down      vkCreateInstance returns VK_SUCCESS and a handle of its own without calling down
 *   mode=null_create       vkGetInstanceProcAddr returns NULL for vkCreateInstance
 *   mode=version           negotiation reports interface version `version=` (e.g. 99: impossible)
 *   mode=create_error      vkCreateInstance calls down, destroys what it got, then returns VK_ERROR_INITIALIZATION_FAILED
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#define EXPORT __attribute__((visibility("default")))

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static char g_mode[64] = "pass";
static uint32_t g_version = 2;
static PFN_vkGetInstanceProcAddr g_next_gipa;
static PFN_vkGetDeviceProcAddr g_next_gdpa;
static PFN_vkDestroyInstance g_next_destroy_instance;
static PFN_vkDestroyDevice g_next_destroy_device;

static void load(void) {
    Dl_info info;
    if (!dladdr((void *)&load, &info) || !info.dli_fname) return;
    char path[4200];
    snprintf(path, sizeof path, "%s.conf", info.dli_fname);
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        char *eq = strchr(line, '=');
        if (!eq) continue;
        *eq = 0;
        if (strcmp(line, "mode") == 0) snprintf(g_mode, sizeof g_mode, "%s", eq + 1);
        else if (strcmp(line, "version") == 0) g_version = (uint32_t)strtoul(eq + 1, 0, 0);
    }
    fclose(f);
}

static int mode(const char *m) {
    pthread_once(&g_once, load);
    return strcmp(g_mode, m) == 0;
}

static VkLayerInstanceCreateInfo *instance_link(const VkInstanceCreateInfo *ci) {
    for (const VkBaseInStructure *p = ci->pNext; p; p = p->pNext) {
        const VkLayerInstanceCreateInfo *l = (const VkLayerInstanceCreateInfo *)p;
        if (p->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO && l->function == VK_LAYER_LINK_INFO) {
            return (VkLayerInstanceCreateInfo *)l;
        }
    }
    return NULL;
}

static VkLayerDeviceCreateInfo *device_link(const VkDeviceCreateInfo *ci) {
    for (const VkBaseInStructure *p = ci->pNext; p; p = p->pNext) {
        const VkLayerDeviceCreateInfo *l = (const VkLayerDeviceCreateInfo *)p;
        if (p->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO && l->function == VK_LAYER_LINK_INFO) {
            return (VkLayerDeviceCreateInfo *)l;
        }
    }
    return NULL;
}

static VkResult VKAPI_CALL CreateInstance(const VkInstanceCreateInfo *ci, const VkAllocationCallbacks *a,
                                          VkInstance *pInstance) {
    if (mode("no_call_down")) {
        /* a dispatchable-looking object: the loader writes its dispatch word into the first slot */
        *pInstance = (VkInstance)calloc(1, 64);
        return VK_SUCCESS;
    }
    VkLayerInstanceCreateInfo *link = instance_link(ci);
    if (!link || !link->u.pLayerInfo) return VK_ERROR_INITIALIZATION_FAILED;
    g_next_gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    PFN_vkCreateInstance next = (PFN_vkCreateInstance)g_next_gipa(VK_NULL_HANDLE, "vkCreateInstance");
    link->u.pLayerInfo = link->u.pLayerInfo->pNext;
    VkResult r = next(ci, a, pInstance);
    if (r != VK_SUCCESS) return r;
    g_next_destroy_instance = (PFN_vkDestroyInstance)g_next_gipa(*pInstance, "vkDestroyInstance");
    if (mode("create_error")) {
        g_next_destroy_instance(*pInstance, a);
        *pInstance = VK_NULL_HANDLE;
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    return VK_SUCCESS;
}

static void VKAPI_CALL DestroyInstance(VkInstance instance, const VkAllocationCallbacks *a) {
    if (mode("no_call_down")) {
        free(instance);
        return;
    }
    if (g_next_destroy_instance) g_next_destroy_instance(instance, a);
}

static VkResult VKAPI_CALL CreateDevice(VkPhysicalDevice pd, const VkDeviceCreateInfo *ci,
                                        const VkAllocationCallbacks *a, VkDevice *pDevice) {
    VkLayerDeviceCreateInfo *link = device_link(ci);
    if (!link || !link->u.pLayerInfo) return VK_ERROR_INITIALIZATION_FAILED;
    PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    g_next_gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
    PFN_vkCreateDevice next = (PFN_vkCreateDevice)gipa(VK_NULL_HANDLE, "vkCreateDevice");
    link->u.pLayerInfo = link->u.pLayerInfo->pNext;
    VkResult r = next(pd, ci, a, pDevice);
    if (r == VK_SUCCESS) g_next_destroy_device = (PFN_vkDestroyDevice)g_next_gdpa(*pDevice, "vkDestroyDevice");
    return r;
}

static void VKAPI_CALL DestroyDevice(VkDevice device, const VkAllocationCallbacks *a) {
    if (g_next_destroy_device) g_next_destroy_device(device, a);
}

EXPORT PFN_vkVoidFunction VKAPI_CALL vkGetDeviceProcAddr(VkDevice device, const char *name);

EXPORT PFN_vkVoidFunction VKAPI_CALL vkGetInstanceProcAddr(VkInstance instance, const char *name) {
    if (strcmp(name, "vkCreateInstance") == 0) return mode("null_create") ? NULL : (PFN_vkVoidFunction)CreateInstance;
    if (strcmp(name, "vkDestroyInstance") == 0) return (PFN_vkVoidFunction)DestroyInstance;
    if (strcmp(name, "vkCreateDevice") == 0) return (PFN_vkVoidFunction)CreateDevice;
    if (strcmp(name, "vkGetInstanceProcAddr") == 0) return (PFN_vkVoidFunction)vkGetInstanceProcAddr;
    if (strcmp(name, "vkGetDeviceProcAddr") == 0) return (PFN_vkVoidFunction)vkGetDeviceProcAddr;
    if (strcmp(name, "vkDestroyDevice") == 0) return (PFN_vkVoidFunction)DestroyDevice;
    return g_next_gipa && !mode("no_call_down") ? g_next_gipa(instance, name) : NULL;
}

EXPORT PFN_vkVoidFunction VKAPI_CALL vkGetDeviceProcAddr(VkDevice device, const char *name) {
    if (strcmp(name, "vkGetDeviceProcAddr") == 0) return (PFN_vkVoidFunction)vkGetDeviceProcAddr;
    if (strcmp(name, "vkDestroyDevice") == 0) return (PFN_vkVoidFunction)DestroyDevice;
    return g_next_gdpa ? g_next_gdpa(device, name) : NULL;
}

EXPORT VkResult VKAPI_CALL vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface *p) {
    pthread_once(&g_once, load);
    p->pfnGetInstanceProcAddr = vkGetInstanceProcAddr;
    p->pfnGetDeviceProcAddr = vkGetDeviceProcAddr;
    p->pfnGetPhysicalDeviceProcAddr = NULL;
    p->loaderLayerInterfaceVersion = mode("version") ? g_version : 2;
    return VK_SUCCESS;
}
