// Test partner for loading/layer_library.ts and chain/layer_chain/nodes.ts: the layouts of vk_layer.h as the C
// compiler sees them, a walker that reads the loader's nodes the way a layer does, and negotiation entry
// points under custom names (the manifest's "functions" picks one; the standard name is not exported, so
// a manifest without a rename sees a library without negotiation).
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <vulkan/vk_layer.h>

#define EXPORT __attribute__((visibility("default")))

// Layout facts, in this order: sizes and offsets the TypeScript side hard-codes.
EXPORT void layer_iface_layout(uint32_t *out) {
  int i = 0;
  out[i++] = sizeof(VkNegotiateLayerInterface);
  out[i++] = offsetof(VkNegotiateLayerInterface, sType);
  out[i++] = offsetof(VkNegotiateLayerInterface, pNext);
  out[i++] = offsetof(VkNegotiateLayerInterface, loaderLayerInterfaceVersion);
  out[i++] = offsetof(VkNegotiateLayerInterface, pfnGetInstanceProcAddr);
  out[i++] = offsetof(VkNegotiateLayerInterface, pfnGetDeviceProcAddr);
  out[i++] = offsetof(VkNegotiateLayerInterface, pfnGetPhysicalDeviceProcAddr);
  out[i++] = sizeof(VkLayerInstanceCreateInfo);
  out[i++] = offsetof(VkLayerInstanceCreateInfo, sType);
  out[i++] = offsetof(VkLayerInstanceCreateInfo, pNext);
  out[i++] = offsetof(VkLayerInstanceCreateInfo, function);
  out[i++] = offsetof(VkLayerInstanceCreateInfo, u);
  out[i++] = offsetof(VkLayerInstanceCreateInfo, u.layerDevice.pfnLayerDestroyDevice);
  out[i++] = sizeof(VkLayerDeviceCreateInfo);
  out[i++] = offsetof(VkLayerDeviceCreateInfo, sType);
  out[i++] = offsetof(VkLayerDeviceCreateInfo, pNext);
  out[i++] = offsetof(VkLayerDeviceCreateInfo, function);
  out[i++] = offsetof(VkLayerDeviceCreateInfo, u);
  out[i++] = sizeof(VkLayerInstanceLink);
  out[i++] = offsetof(VkLayerInstanceLink, pNext);
  out[i++] = offsetof(VkLayerInstanceLink, pfnNextGetInstanceProcAddr);
  out[i++] = offsetof(VkLayerInstanceLink, pfnNextGetPhysicalDeviceProcAddr);
  out[i++] = sizeof(VkLayerDeviceLink);
  out[i++] = offsetof(VkLayerDeviceLink, pNext);
  out[i++] = offsetof(VkLayerDeviceLink, pfnNextGetInstanceProcAddr);
  out[i++] = offsetof(VkLayerDeviceLink, pfnNextGetDeviceProcAddr);
  out[i++] = VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO;
  out[i++] = VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO;
  out[i++] = VK_LAYER_LINK_INFO;
  out[i++] = VK_LOADER_DATA_CALLBACK;
  out[i++] = VK_LOADER_LAYER_CREATE_DEVICE_CALLBACK;
  out[i++] = VK_LOADER_FEATURES;
  out[i++] = LAYER_NEGOTIATE_INTERFACE_STRUCT;
  out[i++] = CURRENT_LOADER_LAYER_INTERFACE_VERSION;
  out[i++] = sizeof(VkEnumerateInstanceExtensionPropertiesChain);
  out[i++] = offsetof(VkEnumerateInstanceExtensionPropertiesChain, pfnNextLayer);
  out[i++] = offsetof(VkEnumerateInstanceExtensionPropertiesChain, pNextLink);
  out[i++] = sizeof(VkEnumerateInstanceLayerPropertiesChain);
  out[i++] = sizeof(VkEnumerateInstanceVersionChain);
  out[i++] = offsetof(VkChainHeader, size);
  out[i++] = VK_CURRENT_CHAIN_VERSION;
}

// Walks an instance create info's pNext as a layer would and writes one token per struct:
// "F<flags>", "D<create>,<destroy>", "C<setInstanceLoaderData>", "L<gipa>/<gpdpa>;..." (every link),
// "S<sType>" for other structs. Addresses in hex.
EXPORT int layer_iface_describe_instance(const VkInstanceCreateInfo *ci, char *out, int size) {
  int n = 0;
  out[0] = 0;
  for (const VkBaseInStructure *s = ci->pNext; s; s = s->pNext) {
    if (s->sType != VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO) {
      n += snprintf(out + n, size - n, "S%d ", s->sType);
      continue;
    }
    const VkLayerInstanceCreateInfo *l = (const VkLayerInstanceCreateInfo *)s;
    switch (l->function) {
      case VK_LOADER_FEATURES:
        n += snprintf(out + n, size - n, "F%u ", l->u.loaderFeatures);
        break;
      case VK_LOADER_LAYER_CREATE_DEVICE_CALLBACK:
        n += snprintf(out + n, size - n, "D%p,%p ", (void *)l->u.layerDevice.pfnLayerCreateDevice,
                      (void *)l->u.layerDevice.pfnLayerDestroyDevice);
        break;
      case VK_LOADER_DATA_CALLBACK:
        n += snprintf(out + n, size - n, "C%p ", (void *)l->u.pfnSetInstanceLoaderData);
        break;
      case VK_LAYER_LINK_INFO:
        n += snprintf(out + n, size - n, "L");
        for (const VkLayerInstanceLink *k = l->u.pLayerInfo; k; k = k->pNext) {
          n += snprintf(out + n, size - n, "%p/%p;", (void *)k->pfnNextGetInstanceProcAddr,
                        (void *)k->pfnNextGetPhysicalDeviceProcAddr);
        }
        n += snprintf(out + n, size - n, " ");
        break;
      default:
        n += snprintf(out + n, size - n, "?%d ", l->function);
    }
  }
  return n;
}

// The same for a device create info: "C<setDeviceLoaderData>", "L<gipa>/<gdpa>;...", "G<pd>,<pd>..." for a
// device group struct, "S<sType>" for others.
EXPORT int layer_iface_describe_device(const VkDeviceCreateInfo *ci, char *out, int size) {
  int n = 0;
  out[0] = 0;
  for (const VkBaseInStructure *s = ci->pNext; s; s = s->pNext) {
    if (s->sType == VK_STRUCTURE_TYPE_DEVICE_GROUP_DEVICE_CREATE_INFO) {
      const VkDeviceGroupDeviceCreateInfo *g = (const VkDeviceGroupDeviceCreateInfo *)s;
      n += snprintf(out + n, size - n, "G");
      for (uint32_t i = 0; i < g->physicalDeviceCount; i++) {
        n += snprintf(out + n, size - n, "%p;", (void *)g->pPhysicalDevices[i]);
      }
      n += snprintf(out + n, size - n, " ");
      continue;
    }
    if (s->sType != VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO) {
      n += snprintf(out + n, size - n, "S%d ", s->sType);
      continue;
    }
    const VkLayerDeviceCreateInfo *l = (const VkLayerDeviceCreateInfo *)s;
    if (l->function == VK_LOADER_DATA_CALLBACK) {
      n += snprintf(out + n, size - n, "C%p ", (void *)l->u.pfnSetDeviceLoaderData);
    } else if (l->function == VK_LAYER_LINK_INFO) {
      n += snprintf(out + n, size - n, "L");
      for (const VkLayerDeviceLink *k = l->u.pLayerInfo; k; k = k->pNext) {
        n += snprintf(out + n, size - n, "%p/%p;", (void *)k->pfnNextGetInstanceProcAddr,
                      (void *)k->pfnNextGetDeviceProcAddr);
      }
      n += snprintf(out + n, size - n, " ");
    } else {
      n += snprintf(out + n, size - n, "?%d ", l->function);
    }
  }
  return n;
}

// Entry points a negotiation may hand over; their addresses are what the tests compare.
EXPORT PFN_vkVoidFunction VKAPI_CALL vkGetInstanceProcAddr(VkInstance i, const char *n) {
  (void)i; (void)n;
  return NULL;
}
EXPORT PFN_vkVoidFunction VKAPI_CALL vkGetDeviceProcAddr(VkDevice d, const char *n) {
  (void)d; (void)n;
  return NULL;
}
EXPORT PFN_vkVoidFunction VKAPI_CALL neg_GetInstanceProcAddr(VkInstance i, const char *n) {
  (void)i; (void)n;
  return (PFN_vkVoidFunction)1;
}
EXPORT PFN_vkVoidFunction VKAPI_CALL neg_GetDeviceProcAddr(VkDevice d, const char *n) {
  (void)d; (void)n;
  return (PFN_vkVoidFunction)2;
}
EXPORT PFN_vkVoidFunction VKAPI_CALL neg_GetPhysicalDeviceProcAddr(VkInstance i, const char *n) {
  (void)i; (void)n;
  return (PFN_vkVoidFunction)3;
}
EXPORT PFN_vkVoidFunction VKAPI_CALL renamed_GetInstanceProcAddr(VkInstance i, const char *n) {
  (void)i; (void)n;
  return (PFN_vkVoidFunction)4;
}
EXPORT PFN_vkVoidFunction VKAPI_CALL renamed_GetDeviceProcAddr(VkDevice d, const char *n) {
  (void)d; (void)n;
  return (PFN_vkVoidFunction)5;
}

// What the last negotiation call was offered (checked by the tests).
EXPORT uint32_t layer_iface_offered_version = 0;
EXPORT uint32_t layer_iface_offered_stype = 0;
EXPORT uint32_t layer_iface_calls = 0;

static void seen(VkNegotiateLayerInterface *v) {
  layer_iface_offered_version = v->loaderLayerInterfaceVersion;
  layer_iface_offered_stype = v->sType;
  layer_iface_calls++;
}

// Interface 2 with all three pointers.
EXPORT VkResult VKAPI_CALL neg_v2_full(VkNegotiateLayerInterface *v) {
  seen(v);
  v->loaderLayerInterfaceVersion = 2;
  v->pfnGetInstanceProcAddr = neg_GetInstanceProcAddr;
  v->pfnGetDeviceProcAddr = neg_GetDeviceProcAddr;
  v->pfnGetPhysicalDeviceProcAddr = neg_GetPhysicalDeviceProcAddr;
  return VK_SUCCESS;
}
// Interface 2 with only the instance entry point (like Mesa's device-select layer).
EXPORT VkResult VKAPI_CALL neg_v2_instance_only(VkNegotiateLayerInterface *v) {
  seen(v);
  v->loaderLayerInterfaceVersion = 2;
  v->pfnGetInstanceProcAddr = neg_GetInstanceProcAddr;
  return VK_SUCCESS;
}
// Interface 1: pointers in the struct are ignored, names are looked up.
EXPORT VkResult VKAPI_CALL neg_v1(VkNegotiateLayerInterface *v) {
  seen(v);
  v->loaderLayerInterfaceVersion = 1;
  v->pfnGetInstanceProcAddr = neg_GetInstanceProcAddr;
  return VK_SUCCESS;
}
EXPORT VkResult VKAPI_CALL neg_v0(VkNegotiateLayerInterface *v) {
  seen(v);
  v->loaderLayerInterfaceVersion = 0;
  return VK_SUCCESS;
}
EXPORT VkResult VKAPI_CALL neg_v3(VkNegotiateLayerInterface *v) {
  seen(v);
  v->loaderLayerInterfaceVersion = 3;
  return VK_SUCCESS;
}
EXPORT VkResult VKAPI_CALL neg_fail(VkNegotiateLayerInterface *v) {
  seen(v);
  return VK_ERROR_INITIALIZATION_FAILED;
}
