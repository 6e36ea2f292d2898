// A layer that wraps VkInstance (as RenderDoc-like layers do): its vkCreateInstance hands up its own
// object, whose first word is the loader's dispatch word, and its intercepts unwrap before calling down.
// Interface 0/1 (exports vkGetInstanceProcAddr only: instance chain only). Counters tell the test
// whether the loader handed the layer its own handle back.
#include <stdlib.h>
#include <string.h>
#include <vulkan/vk_layer.h>

#define EXPORT __attribute__((visibility("default")))

typedef struct Wrapped {
  void *loader_data; /* the loader's dispatch word, copied: the loader reads it */
  VkInstance real;
  PFN_vkGetInstanceProcAddr next_gipa;
  PFN_vkDestroyInstance destroy;
  PFN_vkEnumeratePhysicalDevices enumerate;
} Wrapped;

static Wrapped *g_wrapped;
EXPORT int wrap_instance_unwrapped = 0; /* intercepts that got the wrapper, as they should */
EXPORT int wrap_instance_foreign = 0;   /* intercepts that got another handle (a loader bug) */

static Wrapped *unwrap(VkInstance instance) {
  if (g_wrapped && (void *)instance == (void *)g_wrapped) {
    wrap_instance_unwrapped++;
    return g_wrapped;
  }
  wrap_instance_foreign++;
  return NULL;
}

static VkResult VKAPI_CALL CreateInstance(const VkInstanceCreateInfo *ci, const VkAllocationCallbacks *a,
                                          VkInstance *pInstance) {
  VkLayerInstanceCreateInfo *link = NULL;
  for (const VkBaseInStructure *s = ci->pNext; s; s = s->pNext) {
    if (s->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO &&
        ((const VkLayerInstanceCreateInfo *)s)->function == VK_LAYER_LINK_INFO)
      link = (VkLayerInstanceCreateInfo *)s;
  }
  if (!link || !link->u.pLayerInfo) return VK_ERROR_INITIALIZATION_FAILED;
  PFN_vkGetInstanceProcAddr next_gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  PFN_vkCreateInstance create = (PFN_vkCreateInstance)next_gipa(VK_NULL_HANDLE, "vkCreateInstance");
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;
  VkResult r = create(ci, a, pInstance);
  if (r != VK_SUCCESS) return r;
  Wrapped *w = calloc(1, sizeof *w);
  if (!w) return VK_ERROR_OUT_OF_HOST_MEMORY;
  w->real = *pInstance;
  w->loader_data = *(void **)*pInstance;
  w->next_gipa = next_gipa;
  w->destroy = (PFN_vkDestroyInstance)next_gipa(*pInstance, "vkDestroyInstance");
  w->enumerate = (PFN_vkEnumeratePhysicalDevices)next_gipa(*pInstance, "vkEnumeratePhysicalDevices");
  g_wrapped = w;
  *pInstance = (VkInstance)w;
  return VK_SUCCESS;
}

static void VKAPI_CALL DestroyInstance(VkInstance instance, const VkAllocationCallbacks *a) {
  Wrapped *w = unwrap(instance);
  if (!w) return;
  w->destroy(w->real, a);
  free(w);
  g_wrapped = NULL;
}

static VkResult VKAPI_CALL EnumeratePhysicalDevices(VkInstance instance, uint32_t *count, VkPhysicalDevice *out) {
  Wrapped *w = unwrap(instance);
  return w ? w->enumerate(w->real, count, out) : VK_ERROR_INITIALIZATION_FAILED;
}

EXPORT PFN_vkVoidFunction VKAPI_CALL vkGetInstanceProcAddr(VkInstance instance, const char *name) {
  if (strcmp(name, "vkGetInstanceProcAddr") == 0) return (PFN_vkVoidFunction)vkGetInstanceProcAddr;
  if (strcmp(name, "vkCreateInstance") == 0) return (PFN_vkVoidFunction)CreateInstance;
  if (strcmp(name, "vkDestroyInstance") == 0) return (PFN_vkVoidFunction)DestroyInstance;
  if (strcmp(name, "vkEnumeratePhysicalDevices") == 0) return (PFN_vkVoidFunction)EnumeratePhysicalDevices;
  if (!g_wrapped) return NULL;
  /* Everything else passes through (this layer only wraps what the test calls). */
  return g_wrapped->next_gipa(g_wrapped->real, name);
}
