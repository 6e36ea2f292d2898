/*
 * The physical limit of bench/frame_bench.ts: a renderer's frame recorded in C through libvulkan's exported
 * commands (dlopen'ed, as a program linked with -lvulkan calls them), on an instance and device of its own.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>
#include <vulkan/vulkan.h>

#define EXPORT __attribute__((visibility("default")))

static void *lib;
static VkInstance instance;
static VkDevice device;
static VkCommandPool pool;
static VkCommandBuffer cb;
static VkDescriptorSetLayout setLayout;
static VkPipelineLayout layout;
static VkDescriptorPool descriptorPool;
static VkDescriptorSet set;
static uint8_t pushed[64];

#define COMMANDS(X)                                                                                       \
    X(vkCreateInstance) X(vkDestroyInstance) X(vkEnumeratePhysicalDevices) X(vkCreateDevice)              \
    X(vkDestroyDevice) X(vkCreateCommandPool) X(vkDestroyCommandPool) X(vkResetCommandPool)               \
    X(vkAllocateCommandBuffers) X(vkBeginCommandBuffer) X(vkCreateDescriptorSetLayout)                    \
    X(vkDestroyDescriptorSetLayout) X(vkCreatePipelineLayout) X(vkDestroyPipelineLayout)                  \
    X(vkCreateDescriptorPool) X(vkDestroyDescriptorPool) X(vkAllocateDescriptorSets)                      \
    X(vkCmdBindDescriptorSets) X(vkCmdPushConstants) X(vkCmdSetViewport) X(vkCmdSetScissor) X(vkCmdDraw) \
    X(vkCmdPipelineBarrier2)

#define DECLARE(name) static PFN_##name p_##name;
COMMANDS(DECLARE)

/* Opens libvulkan and makes the instance, device, layouts, set and command buffer; 0 or a VkResult. */
EXPORT int frame_open(void) {
    lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return -1;
#define LOAD(name) \
    if (!(p_##name = (PFN_##name)dlsym(lib, #name))) return -2;
    COMMANDS(LOAD)
    VkApplicationInfo app = {VK_STRUCTURE_TYPE_APPLICATION_INFO, .apiVersion = VK_API_VERSION_1_3};
    VkInstanceCreateInfo ici = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
    VkResult r = p_vkCreateInstance(&ici, NULL, &instance);
    if (r) return r;
    uint32_t n = 1;
    VkPhysicalDevice gpu;
    r = p_vkEnumeratePhysicalDevices(instance, &n, &gpu);
    if (r < 0 || n == 0) return -3;
    float priority = 1;
    VkDeviceQueueCreateInfo qci = {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueCount = 1,
                                   .pQueuePriorities = &priority};
    VkPhysicalDeviceVulkan13Features f13 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES,
                                            .synchronization2 = VK_TRUE};
    VkDeviceCreateInfo dci = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .pNext = &f13, .queueCreateInfoCount = 1,
                              .pQueueCreateInfos = &qci};
    if ((r = p_vkCreateDevice(gpu, &dci, NULL, &device))) return r;
    VkCommandPoolCreateInfo pci = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    if ((r = p_vkCreateCommandPool(device, &pci, NULL, &pool))) return r;
    VkCommandBufferAllocateInfo cai = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = pool,
                                       .commandBufferCount = 1};
    if ((r = p_vkAllocateCommandBuffers(device, &cai, &cb))) return r;
    VkDescriptorSetLayoutBinding binding = {0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC, 1,
                                            VK_SHADER_STAGE_VERTEX_BIT, NULL};
    VkDescriptorSetLayoutCreateInfo sci = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                           .bindingCount = 1, .pBindings = &binding};
    if ((r = p_vkCreateDescriptorSetLayout(device, &sci, NULL, &setLayout))) return r;
    VkPushConstantRange range = {VK_SHADER_STAGE_VERTEX_BIT, 0, 64};
    VkPipelineLayoutCreateInfo lci = {VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = 1,
                                      .pSetLayouts = &setLayout, .pushConstantRangeCount = 1,
                                      .pPushConstantRanges = &range};
    if ((r = p_vkCreatePipelineLayout(device, &lci, NULL, &layout))) return r;
    VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC, 1};
    VkDescriptorPoolCreateInfo dpci = {VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, .maxSets = 1,
                                       .poolSizeCount = 1, .pPoolSizes = &size};
    if ((r = p_vkCreateDescriptorPool(device, &dpci, NULL, &descriptorPool))) return r;
    VkDescriptorSetAllocateInfo dsai = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                        .descriptorPool = descriptorPool, .descriptorSetCount = 1,
                                        .pSetLayouts = &setLayout};
    if ((r = p_vkAllocateDescriptorSets(device, &dsai, &set))) return r;
    memset(pushed, 7, sizeof pushed);
    return 0;
}

/* Resets the pool and begins the command buffer again (untimed). */
EXPORT void frame_reset(void) {
    VkCommandBufferBeginInfo begin = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    p_vkResetCommandPool(device, pool, 0);
    p_vkBeginCommandBuffer(cb, &begin);
}

/* Records `draws` draws as frame_bench.ts's other paths do, with the same values. */
EXPORT void frame_record(uint32_t draws) {
    VkViewport viewport = {0, 0, 64, 64, 0, 1};
    VkRect2D scissor = {{0, 0}, {64, 64}};
    uint32_t offset = 256;
    VkMemoryBarrier2 barrier = {VK_STRUCTURE_TYPE_MEMORY_BARRIER_2,
                                .srcStageMask = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                                .srcAccessMask = VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
                                .dstStageMask = VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
                                .dstAccessMask = VK_ACCESS_2_SHADER_READ_BIT};
    VkDependencyInfo dependency = {VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .memoryBarrierCount = 1,
                                   .pMemoryBarriers = &barrier};
    for (uint32_t i = 0; i < draws; i++) {
        p_vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 0, 1, &set, 1, &offset);
        p_vkCmdPushConstants(cb, layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof pushed, pushed);
        p_vkCmdSetViewport(cb, 0, 1, &viewport);
        p_vkCmdSetScissor(cb, 0, 1, &scissor);
        p_vkCmdDraw(cb, 3, 1, 0, 0);
        if (i % 100 == 99) p_vkCmdPipelineBarrier2(cb, &dependency);
    }
}

EXPORT void frame_close(void) {
    p_vkDestroyDescriptorPool(device, descriptorPool, NULL);
    p_vkDestroyPipelineLayout(device, layout, NULL);
    p_vkDestroyDescriptorSetLayout(device, setLayout, NULL);
    p_vkDestroyCommandPool(device, pool, NULL);
    p_vkDestroyDevice(device, NULL);
    p_vkDestroyInstance(instance, NULL);
    dlclose(lib);
}
