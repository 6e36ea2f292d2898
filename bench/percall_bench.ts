/**
 * Per call on lavapipe: `vkCmdSetLineWidth` (driver work) and `vkGetDeviceQueue` (a lookup) through
 * libvulkan's export, vkdeno's public command and device table, the naive `Deno.UnsafeFnPointer` path and
 * the FFI floor (a C no-op), without and with one pass-through layer.
 */

import { passthroughLayers } from "./_native.ts";
import { floorCase, floorSymbols, loadVkdeno, type Measured, Subject, trySubject } from "./_percall.ts";
import { type PairedGroup, runPaired, type Target } from "./_paired.ts";
import { setBenchEnvironment } from "./_vulkan.ts";
import { openLibvulkan } from "../tests/support/libvulkan.ts";

const QUEUE_WHY =
  "on x86-64, vkdeno's public vkGetDeviceQueue is a plain dispatch stub into native code that calls the " +
  "driver (or top layer) and stamps the queue (ffi/native_helpers.ts stampedQueueCode), as libvulkan's " +
  "trampoline does in C: one stub jump more than libvulkan's exported function; elsewhere it is a " +
  "JavaScript trampoline making two native calls (chain/trampoline.ts)";

const COMMANDS: Measured[] = ["vkCmdSetLineWidth", "vkGetDeviceQueue"];

const REF = "libvulkan export (reference)";
const FLOOR = "floor: C no-op, Deno.dlopen";
const PUBLIC = "vkdeno public command";
const TABLE = "vkdeno device table";
const NAIVE = "naive: UnsafeFnPointer on vkGetDeviceProcAddr's pointer";

if (import.meta.main) {
  await runPaired("bench/percall_bench.ts", async () => {
    const layers = await passthroughLayers(1);
    setBenchEnvironment({
      VK_LAYER_PATH: layers.folder,
      VK_LOADER_DEBUG: Deno.env.get("BENCH_LOADER_DEBUG"),
    });
    const floor = await floorSymbols();
    const libvulkan = openLibvulkan();
    const vkdeno = await loadVkdeno();
    const subjects: Subject[] = [];
    const groups: PairedGroup[] = [];
    const targets: Target[] = [];
    for (const layered of [false, true]) {
      const enabled = layered ? layers.names : [];
      const ref = new Subject("libvulkan", libvulkan, enabled);
      const [ours, missing] = trySubject("vkdeno", vkdeno, enabled);
      subjects.push(ref, ...(ours ? [ours] : []));
      for (const command of COMMANDS) {
        const group = `${command}, ${layered ? "one pass-through layer" : "no layers"}`;
        groups.push({
          name: group,
          baseline: REF,
          ...(missing ? { note: `vkdeno is not measured here: ${missing}` } : {}),
          cases: [
            ref.publicCase(REF, command),
            floorCase(FLOOR, floor, ref, command),
            ...(ours ? [ours.publicCase(PUBLIC, command), ours.tableCase(TABLE, command)] : []),
            ref.naiveCase(NAIVE, command),
          ],
        });
        if (!ours) continue;
        targets.push(
          {
            label: `${group}: vkdeno public / libvulkan export`,
            group,
            case: PUBLIC,
            against: REF,
            op: "<=",
            limit: 1.05,
            whyMissed: command === "vkGetDeviceQueue" ? QUEUE_WHY : undefined,
          },
          {
            label: `${group}: vkdeno public / floor`,
            group,
            case: PUBLIC,
            against: FLOOR,
            op: "<=",
            limit: 2.0,
            whyMissed: command === "vkGetDeviceQueue"
              ? QUEUE_WHY
              : `the floor is a no-op, and the time of a real call includes the driver's ${
                layered ? "and the layer's " : ""
              }own work (lavapipe allocates and links a command entry per recorded command); libvulkan's ` +
                "export misses it by as much (see the table)",
          },
        );
      }
    }
    return {
      groups,
      targets,
      dispose() {
        for (const s of subjects.reverse()) s[Symbol.dispose]();
        libvulkan[Symbol.dispose]();
        vkdeno?.[Symbol.dispose]();
      },
    };
  });
}
