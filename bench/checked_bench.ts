/**
 * Checked mode's cost per call on lavapipe (docs/behaviour.md V08): `vkCmdSetLineWidth` and `vkGetDeviceQueue`
 * through libvulkan's export, vkdeno with checked mode off (the bare native stub, as before checked mode
 * existed) and on (`Vulkan.load({ checked: true })`).
 */

import { Vulkan } from "../mod.ts";
import { type Measured, Subject } from "./_percall.ts";
import { type PairedGroup, runPaired, type Target } from "./_paired.ts";
import { type Commands, setBenchEnvironment } from "./_vulkan.ts";
import { openLibvulkan } from "../tests/support/libvulkan.ts";

const COMMANDS: Measured[] = ["vkCmdSetLineWidth", "vkGetDeviceQueue"];
const REF = "libvulkan export (reference)";
const OFF = "vkdeno, checked mode off (default)";
const ON = "vkdeno, checked mode on";

if (import.meta.main) {
  await runPaired("bench/checked_bench.ts", () => {
    setBenchEnvironment({ VKDENO_CHECKED: undefined });
    const libvulkan = openLibvulkan();
    const plain = Vulkan.load({ checked: false });
    const checked = Vulkan.load({ checked: true });
    const ref = new Subject("libvulkan", libvulkan);
    const off = new Subject("vkdeno", plain as unknown as Commands);
    const on = new Subject("vkdeno checked", checked as unknown as Commands);
    const groups: PairedGroup[] = [];
    const targets: Target[] = [];
    for (const command of COMMANDS) {
      const group = `${command}, no layers`;
      groups.push({
        name: group,
        baseline: REF,
        cases: [ref.publicCase(REF, command), off.publicCase(OFF, command), on.publicCase(ON, command)],
      });
      targets.push({
        label: `${group}: checked off / libvulkan export`,
        group,
        case: OFF,
        against: REF,
        op: "<=",
        limit: 1.05,
      });
    }
    return Promise.resolve({
      groups,
      targets,
      dispose() {
        for (const s of [on, off, ref]) s[Symbol.dispose]();
        checked.dispose();
        plain.dispose();
        libvulkan[Symbol.dispose]();
      },
    });
  });
}
