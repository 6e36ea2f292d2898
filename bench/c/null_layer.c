/*
 * The pass-through layer with a frame's recording commands (bench/frame_bench.ts --null) answered by empty
 * functions: what a loader adds per command shows as it would over a driver that records in a few ns.
 */
#define NULL_COMMANDS
#include "passthrough_layer.c"
