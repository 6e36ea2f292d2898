/* The floor of a TS layer in a native chain: C calling a JavaScript callback (an empty one, with
 * vkCmdSetLineWidth's signature) n times, for bench/ts_layer_bench.ts. The handle is not NULL, as a native
 * link's never is: Deno makes an object of every non-NULL pointer argument, which a NULL one skips. */

#define EXPORT __attribute__((visibility("default")))

/* What the handle points to: never read. */
static void *command_buffer[1];

EXPORT void callLineWidth(void (*fn)(void *, float), int n) {
    for (int i = 0; i < n; i++) fn((void *)command_buffer, 1.0f);
}
