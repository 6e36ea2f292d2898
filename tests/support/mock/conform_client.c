/*
 * The conformance probe: a small Vulkan application linked against the Khronos loader (libvulkan.so.1) that
 * prints what a user would check, one fact per line, and never stops at a failing call. tests/support/conform.ts
 * prints the same lines for vkdeno, so a test compares the two outputs line by line.
 *
 * usage: conform_client [enable=EXT,EXT] [app_layers=NAME,NAME] [api=1.3]
 *
 * Output, in this order:
 *   instance_extension <name>                  vkEnumerateInstanceExtensionProperties(NULL)
 *   layer <name>                               vkEnumerateInstanceLayerProperties
 *   create_instance result=<r>                 vkCreateInstance (stops here unless 0)
 *   devices result=<r> count=<n>               vkEnumeratePhysicalDevices
 *   device <name>                              one line per device, in order
 *   groups result=<r> count=<n>                vkEnumeratePhysicalDeviceGroups
 *   group <name>,<name> known=<yes|no>         per group: device names; known = every handle is one of the devices
 *   create_device <name> result=<r>            vkCreateDevice on each device (destroyed again)
 *   ok
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>

#define MAX_LIST 64

static int split(char *text, const char **out, int max) {
    int n = 0;
    for (char *tok = strtok(text, ","); tok != NULL && n < max; tok = strtok(NULL, ",")) out[n++] = tok;
    return n;
}

int main(int argc, char **argv) {
    const char *exts[MAX_LIST], *layers[MAX_LIST];
    int ext_count = 0, layer_count = 0;
    uint32_t api = VK_API_VERSION_1_3;
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "enable=", 7) == 0) ext_count = split(argv[i] + 7, exts, MAX_LIST);
        if (strncmp(argv[i], "app_layers=", 11) == 0) layer_count = split(argv[i] + 11, layers, MAX_LIST);
        if (strcmp(argv[i], "api=1.0") == 0) api = VK_API_VERSION_1_0;
    }

    uint32_t count = 0;
    VkExtensionProperties ext_props[256];
    vkEnumerateInstanceExtensionProperties(NULL, &count, NULL);
    if (count > 256) count = 256;
    vkEnumerateInstanceExtensionProperties(NULL, &count, ext_props);
    for (uint32_t i = 0; i < count; i++) printf("instance_extension %s\n", ext_props[i].extensionName);

    VkLayerProperties layer_props[64];
    count = 0;
    vkEnumerateInstanceLayerProperties(&count, NULL);
    if (count > 64) count = 64;
    vkEnumerateInstanceLayerProperties(&count, layer_props);
    for (uint32_t i = 0; i < count; i++) printf("layer %s\n", layer_props[i].layerName);

    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .pApplicationName = "conform_client",
                             .apiVersion = api};
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app,
                                .enabledExtensionCount = (uint32_t)ext_count, .ppEnabledExtensionNames = exts,
                                .enabledLayerCount = (uint32_t)layer_count, .ppEnabledLayerNames = layers};
    VkInstance instance;
    VkResult r = vkCreateInstance(&ici, NULL, &instance);
    printf("create_instance result=%d\n", (int)r);
    if (r != VK_SUCCESS) return 0;

    VkPhysicalDevice pds[MAX_LIST];
    uint32_t n = 0;
    r = vkEnumeratePhysicalDevices(instance, &n, NULL);
    if (r == VK_SUCCESS) {
        if (n > MAX_LIST) n = MAX_LIST;
        r = vkEnumeratePhysicalDevices(instance, &n, pds);
    }
    if (r != VK_SUCCESS) n = 0;
    printf("devices result=%d count=%u\n", (int)r, n);
    char names[MAX_LIST][VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
    for (uint32_t i = 0; i < n; i++) {
        VkPhysicalDeviceProperties p;
        vkGetPhysicalDeviceProperties(pds[i], &p);
        memcpy(names[i], p.deviceName, sizeof names[i]);
        printf("device %s\n", p.deviceName);
    }

    uint32_t g = 0;
    VkPhysicalDeviceGroupProperties groups[MAX_LIST];
    r = vkEnumeratePhysicalDeviceGroups(instance, &g, NULL);
    if (r == VK_SUCCESS) {
        if (g > MAX_LIST) g = MAX_LIST;
        for (uint32_t i = 0; i < g; i++) {
            memset(&groups[i], 0, sizeof groups[i]);
            groups[i].sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_GROUP_PROPERTIES;
        }
        r = vkEnumeratePhysicalDeviceGroups(instance, &g, groups);
    }
    if (r != VK_SUCCESS) g = 0;
    printf("groups result=%d count=%u\n", (int)r, g);
    for (uint32_t i = 0; i < g; i++) {
        int known = 1;
        printf("group ");
        for (uint32_t k = 0; k < groups[i].physicalDeviceCount; k++) {
            int found = -1;
            for (uint32_t d = 0; d < n; d++) {
                if (pds[d] == groups[i].physicalDevices[k]) found = (int)d;
            }
            if (found < 0) known = 0;
            // A handle the application never saw is not passed to any other call.
            printf("%s%s", k ? "," : "", found < 0 ? "?" : names[found]);
        }
        printf(" known=%s\n", known ? "yes" : "no");
    }

    float priority = 1.0f;
    VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueCount = 1,
                                   .pQueuePriorities = &priority};
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1,
                              .pQueueCreateInfos = &qci};
    for (uint32_t i = 0; i < n; i++) {
        VkDevice device = VK_NULL_HANDLE;
        r = vkCreateDevice(pds[i], &dci, NULL, &device);
        printf("create_device %s result=%d\n", names[i], (int)r);
        if (r == VK_SUCCESS) vkDestroyDevice(device, NULL);
    }
    vkDestroyInstance(instance, NULL);
    printf("ok\n");
    return 0;
}
