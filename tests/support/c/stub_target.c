/*
 * Targets for the dispatch stub tests: each function records the arguments it
 * received as a line of text that the test reads back with stub_last_call().
 * Signatures mirror Vulkan commands of every FFI class (integers, floats,
 * more than six parameters, 64-bit values, pointer and 64-bit results).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static char last_call[512];

const char *stub_last_call(void) { return last_call; }
void stub_reset(void) { last_call[0] = 0; }

void vkGetDeviceQueue(void *device, uint32_t family, uint32_t index, void **queue) {
  snprintf(last_call, sizeof last_call, "vkGetDeviceQueue(%p, %u, %u)", device, family, index);
  *queue = (void *)(uintptr_t)(0x1000 + family * 16 + index);
}

void vkCmdSetLineWidth(void *cmd, float width) {
  snprintf(last_call, sizeof last_call, "vkCmdSetLineWidth(%p, %.3f)", cmd, width);
}

void vkCmdSetBlendConstants(void *cmd, const float constants[4]) {
  snprintf(last_call, sizeof last_call, "vkCmdSetBlendConstants(%p, [%.3f, %.3f, %.3f, %.3f])", cmd,
           constants[0], constants[1], constants[2], constants[3]);
}

void vkCmdSetDepthBias(void *cmd, float constant, float clamp, float slope) {
  snprintf(last_call, sizeof last_call, "vkCmdSetDepthBias(%p, %.3f, %.3f, %.3f)", cmd, constant, clamp, slope);
}

void vkCmdPipelineBarrier(void *cmd, uint32_t src, uint32_t dst, uint32_t deps, uint32_t memCount,
                          const void *mem, uint32_t bufCount, const void *buf, uint32_t imgCount,
                          const void *img) {
  snprintf(last_call, sizeof last_call, "vkCmdPipelineBarrier(%p, %u, %u, %u, %u, %p, %u, %p, %u, %p)", cmd, src,
           dst, deps, memCount, mem, bufCount, buf, imgCount, img);
}

void vkCmdBlitImage(void *cmd, void *src, uint32_t srcLayout, void *dst, uint32_t dstLayout, uint32_t regionCount,
                    const void *regions, uint32_t filter) {
  snprintf(last_call, sizeof last_call, "vkCmdBlitImage(%p, %p, %u, %p, %u, %u, %p, %u)", cmd, src, srcLayout, dst,
           dstLayout, regionCount, regions, filter);
}

void vkCmdFillBuffer(void *cmd, void *buffer, uint64_t offset, uint64_t size, uint32_t data) {
  snprintf(last_call, sizeof last_call, "vkCmdFillBuffer(%p, %p, %llu, %llu, %u)", cmd, buffer,
           (unsigned long long)offset, (unsigned long long)size, data);
}

int32_t vkWaitForFences(void *device, uint32_t count, const void *fences, uint32_t waitAll, uint64_t timeout) {
  snprintf(last_call, sizeof last_call, "vkWaitForFences(%p, %u, %p, %u, %llu)", device, count, fences, waitAll,
           (unsigned long long)timeout);
  return timeout == 0 ? 2 /* VK_TIMEOUT */ : -4 /* VK_ERROR_DEVICE_LOST */;
}

uint64_t vkGetBufferDeviceAddress(void *device, const void *info) {
  snprintf(last_call, sizeof last_call, "vkGetBufferDeviceAddress(%p, %p)", device, info);
  return 0xfedcba9876543210ull;
}

void *vkGetDeviceProcAddr(void *device, const char *name) {
  snprintf(last_call, sizeof last_call, "vkGetDeviceProcAddr(%p, %s)", device, name);
  return strcmp(name, "vkGetDeviceQueue") == 0 ? (void *)vkGetDeviceQueue : NULL;
}

/* Calls a callback the way a driver or layer would, and returns what it got. */
int32_t stub_call_result_callback(int32_t (*fn)(void *, uint32_t), void *handle, uint32_t value) {
  return fn(handle, value);
}

void *stub_call_pointer_callback(void *(*fn)(void *, const char *), void *handle, const char *name) {
  return fn(handle, name);
}

/* Calls through a function pointer returned by vkGet*ProcAddr, as an app would. */
void stub_call_get_device_queue(void (*fn)(void *, uint32_t, uint32_t, void **), void *device, uint32_t family,
                                uint32_t index, void **queue) {
  fn(device, family, index, queue);
}

/* The benchmark target: same signature as vkGetDeviceQueue, does nothing. */
void bench_noop(void *device, uint32_t family, uint32_t index, void **queue) {
  (void)device; (void)family; (void)index; (void)queue;
}
