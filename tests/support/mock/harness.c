/*
 * A loader-free create/destroy cycle over a mock driver, optionally with mock
 * layers stacked on top, for valgrind: dlopen, negotiate, instance, devices,
 * device, queue, command pool and buffer, commands, destroy everything, dlclose.
 * The mocks read their "<library>.conf" as usual.
 *
 * usage: harness <driver.so> [layer.so ...]   (layers listed application side first)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vk_icd.h>
#include <vulkan/vk_layer.h>

#define MAX_LAYERS 8
#define CHECK(call)                                                                                                \
    do {                                                                                                           \
        VkResult r_ = (call);                                                                                      \
        if (r_ != VK_SUCCESS) {                                                                                    \
            fprintf(stderr, "harness: %s failed: %d\n", #call, (int)r_);                                         \
            return 1;                                                                                              \
        }                                                                                                          \
    } while (0)

typedef struct Entity {
    void *lib;
    PFN_vkGetInstanceProcAddr gipa;
    PFN_vkGetDeviceProcAddr gdpa;
    PFN_GetPhysicalDeviceProcAddr gpdpa;
} Entity;

static VkInstance g_instance;

static VkResult VKAPI_CALL set_instance_loader_data(VkInstance instance, void *object) {
    *(void **)object = *(void **)instance;
    return VK_SUCCESS;
}

static VkResult VKAPI_CALL set_device_loader_data(VkDevice device, void *object) {
    *(void **)object = *(void **)device;
    return VK_SUCCESS;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: harness <driver.so> [layer.so ...]\n");
        return 2;
    }
    Entity driver = {0};
    driver.lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!driver.lib) {
        fprintf(stderr, "harness: %s\n", dlerror());
        return 1;
    }
    PFN_vk_icdGetInstanceProcAddr icd_gipa = (PFN_vk_icdGetInstanceProcAddr)dlsym(driver.lib, "vk_icdGetInstanceProcAddr");
    PFN_vk_icdNegotiateLoaderICDInterfaceVersion negotiate =
        (PFN_vk_icdNegotiateLoaderICDInterfaceVersion)dlsym(driver.lib, "vk_icdNegotiateLoaderICDInterfaceVersion");
    if (!negotiate && icd_gipa)
        negotiate = (PFN_vk_icdNegotiateLoaderICDInterfaceVersion)icd_gipa(NULL, "vk_icdNegotiateLoaderICDInterfaceVersion");
    uint32_t version = 7;
    if (negotiate) CHECK(negotiate(&version));
    driver.gipa = icd_gipa ? icd_gipa : (PFN_vkGetInstanceProcAddr)dlsym(driver.lib, "vkGetInstanceProcAddr");
    driver.gpdpa = (PFN_GetPhysicalDeviceProcAddr)driver.gipa(NULL, "vk_icdGetPhysicalDeviceProcAddr");

    int layer_count = argc - 2 > MAX_LAYERS ? MAX_LAYERS : argc - 2;
    Entity layers[MAX_LAYERS] = {0};
    for (int i = 0; i < layer_count; i++) {
        layers[i].lib = dlopen(argv[2 + i], RTLD_NOW | RTLD_LOCAL);
        if (!layers[i].lib) {
            fprintf(stderr, "harness: %s\n", dlerror());
            return 1;
        }
        PFN_vkNegotiateLoaderLayerInterfaceVersion ln =
            (PFN_vkNegotiateLoaderLayerInterfaceVersion)dlsym(layers[i].lib, "vkNegotiateLoaderLayerInterfaceVersion");
        VkNegotiateLayerInterface ni = {.sType = LAYER_NEGOTIATE_INTERFACE_STRUCT, .loaderLayerInterfaceVersion = 2};
        if (ln) CHECK(ln(&ni));
        layers[i].gipa = ni.pfnGetInstanceProcAddr ? ni.pfnGetInstanceProcAddr
                                                   : (PFN_vkGetInstanceProcAddr)dlsym(layers[i].lib, "vkGetInstanceProcAddr");
        layers[i].gdpa = ni.pfnGetDeviceProcAddr ? ni.pfnGetDeviceProcAddr
                                                 : (PFN_vkGetDeviceProcAddr)dlsym(layers[i].lib, "vkGetDeviceProcAddr");
        layers[i].gpdpa = ni.pfnGetPhysicalDeviceProcAddr;
    }

    /* instance chain: link i tells layer i about entity i+1 (the driver last) */
    VkLayerInstanceLink ilinks[MAX_LAYERS];
    for (int i = 0; i < layer_count; i++) {
        Entity *next = i + 1 < layer_count ? &layers[i + 1] : &driver;
        ilinks[i] = (VkLayerInstanceLink){i + 1 < layer_count ? &ilinks[i + 1] : NULL, next->gipa, next->gpdpa};
    }
    VkLayerInstanceCreateInfo idata = {.sType = VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO,
                                       .function = VK_LOADER_DATA_CALLBACK};
    idata.u.pfnSetInstanceLoaderData = set_instance_loader_data;
    VkLayerInstanceCreateInfo ilink = {.sType = VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO, .pNext = &idata,
                                       .function = VK_LAYER_LINK_INFO};
    ilink.u.pLayerInfo = layer_count ? &ilinks[0] : NULL;
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .apiVersion = VK_API_VERSION_1_3};
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                .pNext = layer_count ? (const void *)&ilink : NULL, .pApplicationInfo = &app};
    Entity *top = layer_count ? &layers[0] : &driver;
    PFN_vkCreateInstance create_instance = (PFN_vkCreateInstance)top->gipa(NULL, "vkCreateInstance");
    CHECK(create_instance(&ici, NULL, &g_instance));

#define IFN(name) ((PFN_##name)top->gipa(g_instance, #name))
    uint32_t n = 0;
    CHECK(IFN(vkEnumeratePhysicalDevices)(g_instance, &n, NULL));
    VkPhysicalDevice *pds = calloc(n ? n : 1, sizeof *pds);
    CHECK(IFN(vkEnumeratePhysicalDevices)(g_instance, &n, pds));
    for (uint32_t i = 0; i < n; i++) {
        VkPhysicalDeviceProperties p;
        IFN(vkGetPhysicalDeviceProperties)(pds[i], &p);
        printf("device %u %s\n", i, p.deviceName);
    }
    PFN_vkGetDeviceProcAddr device_gpa = (PFN_vkGetDeviceProcAddr)top->gipa(g_instance, "vkGetDeviceProcAddr");

    VkLayerDeviceLink dlinks[MAX_LAYERS];
    PFN_vkGetDeviceProcAddr driver_gdpa = (PFN_vkGetDeviceProcAddr)driver.gipa(NULL, "vkGetDeviceProcAddr");
    if (!driver_gdpa) driver_gdpa = (PFN_vkGetDeviceProcAddr)driver.gipa(g_instance, "vkGetDeviceProcAddr");
    for (int i = 0; i < layer_count; i++) {
        Entity *next = i + 1 < layer_count ? &layers[i + 1] : &driver;
        dlinks[i] = (VkLayerDeviceLink){i + 1 < layer_count ? &dlinks[i + 1] : NULL, next->gipa,
                                        i + 1 < layer_count ? next->gdpa : driver_gdpa};
    }
    VkLayerDeviceCreateInfo ddata = {.sType = VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO,
                                     .function = VK_LOADER_DATA_CALLBACK};
    ddata.u.pfnSetDeviceLoaderData = set_device_loader_data;
    VkLayerDeviceCreateInfo dlink = {.sType = VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO, .pNext = &ddata,
                                     .function = VK_LAYER_LINK_INFO};
    dlink.u.pLayerInfo = layer_count ? &dlinks[0] : NULL;
    float priority = 1.0f;
    VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueCount = 1,
                                   .pQueuePriorities = &priority};
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                              .pNext = layer_count ? (const void *)&dlink : NULL, .queueCreateInfoCount = 1,
                              .pQueueCreateInfos = &qci};
    VkDevice device;
    CHECK(IFN(vkCreateDevice)(pds[0], &dci, NULL, &device));
#define DFN(name) ((PFN_##name)device_gpa(device, #name))
    VkQueue queue;
    DFN(vkGetDeviceQueue)(device, 0, 0, &queue);
    VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    VkCommandPool pool;
    CHECK(DFN(vkCreateCommandPool)(device, &pci, NULL, &pool));
    VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = pool,
                                       .commandBufferCount = 2};
    VkCommandBuffer cbs[2];
    CHECK(DFN(vkAllocateCommandBuffers)(device, &cai, cbs));
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    CHECK(DFN(vkBeginCommandBuffer)(cbs[0], &bi));
    DFN(vkCmdSetLineWidth)(cbs[0], 2.0f);
    DFN(vkCmdDraw)(cbs[0], 3, 1, 0, 0);
    CHECK(DFN(vkEndCommandBuffer)(cbs[0]));
    CHECK(DFN(vkQueueWaitIdle)(queue));
    DFN(vkFreeCommandBuffers)(device, pool, 1, &cbs[1]); /* the other one goes with its pool */
    DFN(vkDestroyCommandPool)(device, pool, NULL);
    DFN(vkDestroyDevice)(device, NULL);
    IFN(vkDestroyInstance)(g_instance, NULL);
    free(pds);
    for (int i = 0; i < layer_count; i++) dlclose(layers[i].lib);
    dlclose(driver.lib);
    printf("ok\n");
    return 0;
}
