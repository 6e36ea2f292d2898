/*
 * A tiny Vulkan application linked against the Khronos loader (libvulkan.so.1):
 * the mock driver and mock layer must work under the real loader, not only
 * under our reading of the interface. Prints one line per step; exits non-zero
 * on the first failure.
 *
 * usage: khronos_client [surface] [pre]
 *   surface: also a headless surface, surface support queries and a swapchain
 *   pre:     first print vkEnumerateInstanceVersion and the instance extensions (pre-instance functions)
 */
#include <stdio.h>
#include <string.h>
#include <vulkan/vulkan.h>

#define CHECK(call)                                                                                                \
    do {                                                                                                           \
        VkResult r_ = (call);                                                                                      \
        if (r_ != VK_SUCCESS) {                                                                                    \
            printf("fail %s %d\n", #call, (int)r_);                                                                \
            return 1;                                                                                              \
        }                                                                                                          \
    } while (0)

int main(int argc, char **argv) {
    int surface = 0, pre = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "surface") == 0) surface = 1;
        if (strcmp(argv[i], "pre") == 0) pre = 1;
    }
    if (pre) {
        uint32_t version = 0;
        CHECK(vkEnumerateInstanceVersion(&version));
        printf("instance version %u.%u\n", VK_API_VERSION_MAJOR(version), VK_API_VERSION_MINOR(version));
        uint32_t count = 0;
        CHECK(vkEnumerateInstanceExtensionProperties(NULL, &count, NULL));
        VkExtensionProperties props[256];
        if (count > 256) count = 256;
        CHECK(vkEnumerateInstanceExtensionProperties(NULL, &count, props));
        for (uint32_t i = 0; i < count; i++) printf("instance extension %s\n", props[i].extensionName);
    }
    const char *instance_exts[] = {"VK_KHR_surface", "VK_EXT_headless_surface"};
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .pApplicationName = "khronos_client",
                             .apiVersion = VK_API_VERSION_1_3};
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app,
                                .enabledExtensionCount = surface ? 2 : 0, .ppEnabledExtensionNames = instance_exts};
    VkInstance instance;
    CHECK(vkCreateInstance(&ici, NULL, &instance));
    uint32_t n = 0;
    CHECK(vkEnumeratePhysicalDevices(instance, &n, NULL));
    VkPhysicalDevice pds[32];
    if (n > 32) n = 32;
    CHECK(vkEnumeratePhysicalDevices(instance, &n, pds));
    for (uint32_t i = 0; i < n; i++) {
        VkPhysicalDeviceProperties p;
        vkGetPhysicalDeviceProperties(pds[i], &p);
        printf("device %u name=%s type=%d vendor=0x%x api=%u.%u\n", i, p.deviceName, (int)p.deviceType, p.vendorID,
               VK_API_VERSION_MAJOR(p.apiVersion), VK_API_VERSION_MINOR(p.apiVersion));
    }
    if (n == 0) {
        printf("fail no devices\n");
        return 1;
    }
    VkSurfaceKHR vk_surface = VK_NULL_HANDLE;
    if (surface) {
        PFN_vkCreateHeadlessSurfaceEXT create =
            (PFN_vkCreateHeadlessSurfaceEXT)vkGetInstanceProcAddr(instance, "vkCreateHeadlessSurfaceEXT");
        VkHeadlessSurfaceCreateInfoEXT sci = {.sType = VK_STRUCTURE_TYPE_HEADLESS_SURFACE_CREATE_INFO_EXT};
        CHECK(create(instance, &sci, NULL, &vk_surface));
        for (uint32_t i = 0; i < n; i++) {
            VkBool32 supported = VK_FALSE;
            CHECK(vkGetPhysicalDeviceSurfaceSupportKHR(pds[i], 0, vk_surface, &supported));
            printf("surface support %u %u\n", i, supported);
        }
    }
    float priority = 1.0f;
    VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueCount = 1,
                                   .pQueuePriorities = &priority};
    const char *device_exts[] = {"VK_KHR_swapchain"};
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1,
                              .pQueueCreateInfos = &qci, .enabledExtensionCount = surface ? 1 : 0,
                              .ppEnabledExtensionNames = device_exts};
    VkDevice device;
    CHECK(vkCreateDevice(pds[0], &dci, NULL, &device));
    VkQueue queue;
    vkGetDeviceQueue(device, 0, 0, &queue);
    VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    VkCommandPool pool;
    CHECK(vkCreateCommandPool(device, &pci, NULL, &pool));
    VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = pool,
                                       .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
    VkCommandBuffer cb;
    CHECK(vkAllocateCommandBuffers(device, &cai, &cb));
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    CHECK(vkBeginCommandBuffer(cb, &bi));
    vkCmdSetLineWidth(cb, 2.0f);
    vkCmdDraw(cb, 3, 1, 0, 0);
    CHECK(vkEndCommandBuffer(cb));
    if (surface) {
        PFN_vkCreateSwapchainKHR create_swapchain =
            (PFN_vkCreateSwapchainKHR)vkGetDeviceProcAddr(device, "vkCreateSwapchainKHR");
        PFN_vkDestroySwapchainKHR destroy_swapchain =
            (PFN_vkDestroySwapchainKHR)vkGetDeviceProcAddr(device, "vkDestroySwapchainKHR");
        VkSwapchainCreateInfoKHR sci = {.sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR, .surface = vk_surface,
                                        .minImageCount = 2, .imageFormat = VK_FORMAT_B8G8R8A8_UNORM,
                                        .imageExtent = {640, 480}, .imageArrayLayers = 1,
                                        .imageUsage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT,
                                        .preTransform = VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR,
                                        .compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR,
                                        .presentMode = VK_PRESENT_MODE_FIFO_KHR};
        VkSwapchainKHR swapchain;
        CHECK(create_swapchain(device, &sci, NULL, &swapchain));
        destroy_swapchain(device, swapchain, NULL);
    }
    vkFreeCommandBuffers(device, pool, 1, &cb);
    vkDestroyCommandPool(device, pool, NULL);
    vkDestroyDevice(device, NULL);
    if (surface) vkDestroySurfaceKHR(instance, vk_surface, NULL);
    vkDestroyInstance(instance, NULL);
    printf("ok\n");
    return 0;
}
