/* The floor of a TS layer in a native chain: C calling a JavaScript callback (an empty one, with
 * vkCmdSetLineWidth's signature) n times, for bench/ts_layer_bench.ts. */

#define EXPORT __attribute__((visibility("default")))

EXPORT void callLineWidth(void (*fn)(void *, float), int n) {
    for (int i = 0; i < n; i++) fn((void *)0, 1.0f);
}
