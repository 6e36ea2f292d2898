/**
 * Fault catalogue, manifest half: a huge, deeply nested, non-UTF-8, looping or
 * unreadable manifest is skipped with a logged reason naming the file, and the
 * good manifest beside it is still used. Driver and layer discovery alike.
 */

import { deepStrictEqual as assertEquals, match as assertMatch, ok as assert } from "node:assert/strict";
import { discoverDrivers } from "../../discovery/drivers.ts";
import { discoverLayers } from "../../discovery/layers.ts";
import {
  goodDriverManifest,
  goodLayerManifest,
  MANIFEST_FAULTS,
  type ManifestFault,
  runningAsRoot,
} from "../support/reliability_manifests.ts";

function tree(): string {
  const dir = Deno.makeTempDirSync({ prefix: "vkdeno_fault_" });
  Deno.mkdirSync(`${dir}/root`);
  Deno.mkdirSync(`${dir}/m`);
  return dir;
}

function remove(dir: string): void {
  Deno.removeSync(dir, { recursive: true });
}

const applicable = MANIFEST_FAULTS.filter((f) => !f.needsUnprivileged || !runningAsRoot());

function driverRun(faults: readonly ManifestFault[]) {
  const dir = tree();
  try {
    const good = goodDriverManifest("/opt/vkdeno/libgood.so");
    Deno.writeTextFileSync(`${dir}/m/good.json`, good);
    for (const f of faults) f.write(`${dir}/m`, good);
    const found = discoverDrivers({
      vars: { VK_DRIVER_FILES: `${dir}/m`, HOME: dir },
      elevated: false,
      root: `${dir}/root`,
    });
    return { dir, found };
  } finally {
    // mode-000 files must be removable by the cleanup even when not root
    for (const entry of Deno.readDirSync(`${dir}/m`)) {
      if (entry.isFile) Deno.chmodSync(`${dir}/m/${entry.name}`, 0o644);
    }
  }
}

for (const fault of applicable) {
  Deno.test(`fault ${fault.id}: driver manifest with ${fault.fault} is skipped with its reason; the good one is used`, () => {
    const { dir, found } = driverRun([fault]);
    try {
      const c = found.candidates.find((c) => c.fileName === fault.fileName);
      assert(c, `no candidate for ${fault.fileName}`);
      assertEquals(c.status, "skipped");
      assertMatch(c.reason ?? "", fault.reason);
      const logged = found.messages.find((m) => m.text.includes(`${dir}/m/${fault.fileName}`));
      assert(logged, `nothing logged about ${fault.fileName}`);
      assert(logged.level === "warn" || logged.level === "error", `logged at ${logged.level}`);
      assertEquals(found.drivers.map((d) => d.fileName), ["good.json"]);
    } finally {
      remove(dir);
    }
  });

  Deno.test(`fault ${fault.id}: layer manifest with ${fault.fault} is skipped with its reason; the good one is used`, () => {
    const dir = tree();
    try {
      const good = goodLayerManifest("VK_LAYER_RELIAB_good", "/opt/vkdeno/libgood_layer.so");
      Deno.writeTextFileSync(`${dir}/m/good.json`, good);
      fault.write(`${dir}/m`, good);
      const found = discoverLayers(
        { vars: { VK_LAYER_PATH: `${dir}/m`, HOME: dir }, elevated: false, root: `${dir}/root` },
        { cache: false },
      );
      const c = found.candidates.find((c) => c.manifestPath === `${dir}/m/${fault.fileName}`);
      assert(c, `no candidate for ${fault.fileName}`);
      assertEquals(c.status, "skipped");
      assertMatch(c.reason, fault.reason);
      const logged = found.messages.find((m) => m.text.includes(`${dir}/m/${fault.fileName}`));
      assert(logged, `nothing logged about ${fault.fileName}`);
      assertEquals(found.layers.map((l) => l.name), ["VK_LAYER_RELIAB_good"]);
    } finally {
      for (const entry of Deno.readDirSync(`${dir}/m`)) {
        if (entry.isFile) Deno.chmodSync(`${dir}/m/${entry.name}`, 0o644);
      }
      remove(dir);
    }
  });
}

Deno.test("fault catalogue: every manifest fault at once leaves exactly the good driver, each skip with a reason", () => {
  const { dir, found } = driverRun(applicable);
  try {
    assertEquals(found.drivers.map((d) => d.fileName), ["good.json"]);
    for (const f of applicable) {
      const c = found.candidates.find((c) => c.fileName === f.fileName);
      assert(c && c.status === "skipped" && (c.reason ?? "").length > 0, `${f.id} not accounted for`);
    }
    // loop_b.json is the second half of the loop: skipped too
    assert(found.candidates.every((c) => c.status === "used" || (c.reason ?? "") !== ""));
  } finally {
    remove(dir);
  }
});

Deno.test("fault: a manifest just under the size limit (3 MiB of padding) is used", () => {
  const dir = tree();
  try {
    const good = goodDriverManifest("/opt/vkdeno/libbig.so");
    Deno.writeTextFileSync(`${dir}/m/big.json`, good.replace("{", `{"pad":"${"y".repeat(3 << 20)}",`));
    const found = discoverDrivers({
      vars: { VK_DRIVER_FILES: `${dir}/m` },
      elevated: false,
      root: `${dir}/root`,
    });
    assertEquals(found.drivers.map((d) => d.libraryPath), ["/opt/vkdeno/libbig.so"]);
  } finally {
    remove(dir);
  }
});

Deno.test("fault: a manifest whose file name is not UTF-8 is accounted for, not thrown", () => {
  // Deno's readDir decodes names lossily (0xFF becomes U+FFFD), so the name read back no longer opens
  // the file; the Khronos loader, working on bytes, loads it. Pinned: accounted for, with a reason.
  const dir = tree();
  try {
    const made = new Deno.Command("sh", {
      args: ["-c", `cat > "$1/m/$(printf 'raw\\377.json')"`, "sh", dir],
      stdin: "piped",
    }).spawn();
    const writer = made.stdin.getWriter();
    void writer.write(new TextEncoder().encode(goodDriverManifest("/opt/vkdeno/libraw.so"))).then(() =>
      writer.close()
    );
    return made.status.then((status) => {
      assert(status.success);
      const found = discoverDrivers({
        vars: { VK_DRIVER_FILES: `${dir}/m` },
        elevated: false,
        root: `${dir}/root`,
      });
      assertEquals(found.candidates.length, 1);
      const c = found.candidates[0]!;
      assert(c.status === "used" || (c.reason ?? "").length > 0);
    }).finally(() => remove(dir));
  } catch (error) {
    remove(dir);
    throw error;
  }
});
