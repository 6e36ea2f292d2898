/* The FFI floor: C no-ops with the signatures of the measured commands. */
#include <stdint.h>

#define EXPORT __attribute__((visibility("default")))

EXPORT void bench_cmd_set_line_width(void *commandBuffer, float lineWidth) {
    (void)commandBuffer;
    (void)lineWidth;
}

EXPORT void bench_get_device_queue(void *device, uint32_t family, uint32_t index, void **pQueue) {
    (void)device;
    (void)family;
    (void)index;
    (void)pQueue;
}
