// Layer negotiation (loading/layer_library.ts) and the loader's pNext nodes (chain/layer_chain/nodes.ts), checked
// against vk_layer.h through tests/support/c/layer_iface.c.
import {
  deepStrictEqual as assertEquals,
  ok as assert,
  strictEqual as assertStrictEquals,
  throws,
} from "node:assert/strict";

function assertThrows<E extends Error>(fn: () => unknown, type: new (...args: never[]) => E): E {
  let caught: unknown;
  throws(() => {
    try {
      fn();
    } catch (e) {
      caught = e;
      throw e;
    }
  }, type);
  return caught as E;
}
import { type LayerManifest, parseLayerManifest } from "../../../discovery/layer_manifest.ts";
import { Library } from "../../../ffi/library.ts";
import { Arena, readPointer } from "../../../ffi/memory.ts";
import { writeStruct } from "../../../api/structs.ts";
import {
  CURRENT_LOADER_LAYER_INTERFACE_VERSION,
  LAYER_NEGOTIATE_INTERFACE_STRUCT,
  LayerLibrary,
  LayerLoadError,
  NEGOTIATE_LAYER_INTERFACE_LAYOUT as N,
} from "../../../loading/layer_library.ts";
import {
  buildDeviceNodes,
  buildInstanceNodes,
  LAYER_DEVICE_CREATE_INFO_LAYOUT as DI,
  LAYER_DEVICE_LINK_LAYOUT as DL,
  LAYER_INSTANCE_CREATE_INFO_LAYOUT as II,
  LAYER_INSTANCE_LINK_LAYOUT as IL,
  LOADER_DEVICE_CREATE_INFO,
  LOADER_INSTANCE_CREATE_INFO,
  readLayerNodes,
  unwrapDeviceGroup,
  VK_LAYER_LINK_INFO,
  VK_LOADER_DATA_CALLBACK,
  VK_LOADER_FEATURES,
  VK_LOADER_LAYER_CREATE_DEVICE_CALLBACK,
} from "../../../chain/layer_chain/nodes.ts";
import { nativeSetLoaderData } from "../../../loading/loader_data.ts";
import { buildTestLibrary } from "../../support/c_build.ts";
import { asHandle } from "../../../vk/handle.ts";
import { hasX86_64Helpers } from "../../../ffi/host.ts";

const libPath = await buildTestLibrary("layer_iface");
const lib = Library.open(libPath);
const iface = {
  layout: lib.fn("layer_iface_layout", { parameters: ["buffer"], result: "void" })!,
  describeInstance: lib.fn("layer_iface_describe_instance", {
    parameters: ["pointer", "buffer", "i32"],
    result: "i32",
  })!,
  describeDevice: lib.fn("layer_iface_describe_device", {
    parameters: ["pointer", "buffer", "i32"],
    result: "i32",
  })!,
};
const sym = (name: string) => Deno.UnsafePointer.value(lib.symbolAddress(name));
const u32 = (name: string) => new Deno.UnsafePointerView(lib.symbolAddress(name)!).getUint32();
const hex = (p: Deno.PointerValue | bigint) => {
  const v = typeof p === "bigint" ? p : Deno.UnsafePointer.value(p);
  return v === 0n ? "(nil)" : `0x${v.toString(16)}`;
};
const fake = (n: bigint) => Deno.UnsafePointer.create(n);

function manifest(name: string, fields: Record<string, unknown> = {}, version = "1.1.0"): LayerManifest {
  const parsed = parseLayerManifest({
    file_format_version: version,
    layer: {
      name,
      type: "GLOBAL",
      library_path: libPath,
      api_version: "1.3.0",
      implementation_version: "1",
      description: "layer_iface",
      ...fields,
    },
  }, { manifestPath: `/tmp/${name}.json`, implicit: false });
  const layer = parsed.layers[0];
  if (layer === undefined) throw new Error(JSON.stringify(parsed.skipped));
  return layer;
}

function describe(fn: typeof iface.describeInstance, info: Deno.PointerValue): string {
  const out = new Uint8Array(4096);
  const n = fn.call(info, out, out.length);
  return new TextDecoder().decode(out.subarray(0, n)).trim();
}

Deno.test("layouts match vk_layer.h as the C compiler lays it out", () => {
  const out = new Uint32Array(41);
  iface.layout.call(new Uint8Array(out.buffer));
  assertEquals([...out], [
    N.size,
    N.sType,
    N.pNext,
    N.loaderLayerInterfaceVersion,
    N.pfnGetInstanceProcAddr,
    N.pfnGetDeviceProcAddr,
    N.pfnGetPhysicalDeviceProcAddr,
    II.size,
    II.sType,
    II.pNext,
    II.function,
    II.u,
    II.uSecond,
    DI.size,
    DI.sType,
    DI.pNext,
    DI.function,
    DI.u,
    IL.size,
    IL.pNext,
    IL.pfnNextGetInstanceProcAddr,
    IL.pfnNextGetPhysicalDeviceProcAddr,
    DL.size,
    DL.pNext,
    DL.pfnNextGetInstanceProcAddr,
    DL.pfnNextGetDeviceProcAddr,
    LOADER_INSTANCE_CREATE_INFO,
    LOADER_DEVICE_CREATE_INFO,
    VK_LAYER_LINK_INFO,
    VK_LOADER_DATA_CALLBACK,
    VK_LOADER_LAYER_CREATE_DEVICE_CALLBACK,
    VK_LOADER_FEATURES,
    LAYER_NEGOTIATE_INTERFACE_STRUCT,
    CURRENT_LOADER_LAYER_INTERFACE_VERSION,
    // Vk*Chain of chain/layer_chain/pre_instance.ts: header 12 bytes, pfnNextLayer at 16, pNextLink at 24.
    32,
    16,
    24,
    32,
    32,
    8,
    1,
  ]);
});

Deno.test("negotiation v2 takes all three entry points from the struct and offers version 2", () => {
  const before = u32("layer_iface_calls");
  using layer = LayerLibrary.load(manifest("VK_LAYER_neg_full", {
    functions: { vkNegotiateLoaderLayerInterfaceVersion: "neg_v2_full" },
  }));
  assertEquals(u32("layer_iface_calls"), before + 1);
  assertEquals(u32("layer_iface_offered_version"), 2);
  assertEquals(u32("layer_iface_offered_stype"), LAYER_NEGOTIATE_INTERFACE_STRUCT);
  assertEquals(layer.interfaceVersion, 2);
  assert(layer.interface.negotiated);
  assertEquals(Deno.UnsafePointer.value(layer.getInstanceProcAddr), sym("neg_GetInstanceProcAddr"));
  assertEquals(Deno.UnsafePointer.value(layer.getDeviceProcAddr), sym("neg_GetDeviceProcAddr"));
  assertEquals(
    Deno.UnsafePointer.value(layer.getPhysicalDeviceProcAddr),
    sym("neg_GetPhysicalDeviceProcAddr"),
  );
});

Deno.test("negotiation v2 with only an instance entry point falls back to the exported vkGetDeviceProcAddr name", () => {
  using layer = LayerLibrary.load(manifest("VK_LAYER_neg_instance_only", {
    functions: { vkNegotiateLoaderLayerInterfaceVersion: "neg_v2_instance_only" },
  }));
  assertEquals(Deno.UnsafePointer.value(layer.getInstanceProcAddr), sym("neg_GetInstanceProcAddr"));
  // This library exports vkGetDeviceProcAddr; the C loader looks the name up the same way.
  assertEquals(Deno.UnsafePointer.value(layer.getDeviceProcAddr), sym("vkGetDeviceProcAddr"));
  assertStrictEquals(layer.getPhysicalDeviceProcAddr, null);
});

Deno.test("negotiated interface 1 ignores the struct's pointers and looks the names up", () => {
  using layer = LayerLibrary.load(manifest("VK_LAYER_neg_v1", {
    functions: { vkNegotiateLoaderLayerInterfaceVersion: "neg_v1" },
  }));
  assertEquals(layer.interfaceVersion, 1);
  assertEquals(Deno.UnsafePointer.value(layer.getInstanceProcAddr), sym("vkGetInstanceProcAddr"));
  assertEquals(Deno.UnsafePointer.value(layer.getDeviceProcAddr), sym("vkGetDeviceProcAddr"));
});

Deno.test("no negotiation function: interface 1 through the manifest's renamed entry points", () => {
  using layer = LayerLibrary.load(manifest("VK_LAYER_renamed", {
    functions: {
      vkGetInstanceProcAddr: "renamed_GetInstanceProcAddr",
      vkGetDeviceProcAddr: "renamed_GetDeviceProcAddr",
    },
  }, "1.0.0"));
  assertEquals(layer.interfaceVersion, 1);
  assert(!layer.interface.negotiated);
  assertEquals(Deno.UnsafePointer.value(layer.getInstanceProcAddr), sym("renamed_GetInstanceProcAddr"));
  assertEquals(Deno.UnsafePointer.value(layer.getDeviceProcAddr), sym("renamed_GetDeviceProcAddr"));
});

Deno.test("a negotiation rename is ignored before file format 1.1.0", () => {
  const before = u32("layer_iface_calls");
  using layer = LayerLibrary.load(manifest("VK_LAYER_old_rename", {
    functions: { vkNegotiateLoaderLayerInterfaceVersion: "neg_v2_full" },
  }, "1.0.0"));
  assertEquals(u32("layer_iface_calls"), before);
  assertEquals(layer.interfaceVersion, 1);
  assertEquals(Deno.UnsafePointer.value(layer.getInstanceProcAddr), sym("vkGetInstanceProcAddr"));
});

for (
  const [fn, why] of [["neg_fail", "returned -3"], ["neg_v0", "version 0"], ["neg_v3", "version 3"]] as const
) {
  Deno.test(`negotiation refusing the layer (${fn}) fails the load and closes the library`, () => {
    const libs = Library.liveCount;
    const err = assertThrows(
      () =>
        LayerLibrary.load(
          manifest(`VK_LAYER_${fn}`, { functions: { vkNegotiateLoaderLayerInterfaceVersion: fn } }),
        ),
      LayerLoadError,
    );
    assertEquals(err.failure, "negotiation failed");
    assert(err.message.includes(why), err.message);
    assert(err.message.includes(`VK_LAYER_${fn}`), err.message);
    assertEquals(Library.liveCount, libs);
    assertEquals(LayerLibrary.openPaths().includes(libPath), false);
  });
}

Deno.test("a missing vkGetInstanceProcAddr or library fails the load", () => {
  const e1 = assertThrows(
    () =>
      LayerLibrary.load(
        manifest("VK_LAYER_no_gipa", { functions: { vkGetInstanceProcAddr: "nope" } }, "1.0.0"),
      ),
    LayerLoadError,
  );
  assertEquals(e1.failure, "missing vkGetInstanceProcAddr");
  assert(e1.message.includes('"nope"'));
  const e2 = assertThrows(
    () => LayerLibrary.load(manifest("VK_LAYER_no_lib", { library_path: "/nonexistent/libx.so" })),
    LayerLoadError,
  );
  assertEquals(e2.failure, "failed to load");
  assert(e2.message.includes("/nonexistent/libx.so"));
});

Deno.test("a library is opened once per process and closed after its last release", () => {
  const libs = Library.liveCount;
  const live = LayerLibrary.liveCount;
  const a = LayerLibrary.load(manifest("VK_LAYER_share_a"));
  const b = LayerLibrary.load(manifest("VK_LAYER_share_b"));
  const c = LayerLibrary.load(manifest("VK_LAYER_share_a"));
  assertEquals(Library.liveCount, libs + 1);
  assertEquals(LayerLibrary.liveCount, live + 3);
  assertEquals(LayerLibrary.openPaths().filter((p) => p === libPath).length, 1);
  a.release();
  a.release(); // idempotent
  b.release();
  assertEquals(Library.liveCount, libs + 1);
  c.release();
  assertEquals(Library.liveCount, libs);
  assertEquals(LayerLibrary.liveCount, live);
});

Deno.test("instance nodes: FEATURES, CREATE_DEVICE_CALLBACK, DATA_CALLBACK, LINK_INFO, then the app's structs", () => {
  using arena = new Arena();
  const appNext = writeStruct(arena, "VkValidationFeaturesEXT", {});
  const nodes = buildInstanceNodes(arena, {
    next: appNext,
    links: [
      { getInstanceProcAddr: fake(0x1100n), getPhysicalDeviceProcAddr: fake(0x1200n) },
      { getInstanceProcAddr: fake(0x2100n), getPhysicalDeviceProcAddr: null },
      { getInstanceProcAddr: fake(0x3100n), getPhysicalDeviceProcAddr: fake(0x3200n) },
    ],
    setInstanceLoaderData: fake(0xc0n),
    layerCreateDevice: fake(0xd0n),
    layerDestroyDevice: fake(0xd8n),
  });
  const info = writeStruct(arena, "VkInstanceCreateInfo", { pNext: nodes.head });
  assertEquals(
    describe(iface.describeInstance, info),
    `F0 D0xd0,0xd8 C0xc0 L0x1100/0x1200;0x2100/(nil);0x3100/0x3200; S1000247000`,
  );
  // A layer advances u.pLayerInfo in place: the next layer sees the rest of the list.
  const linkInfo = new Deno.UnsafePointerView(nodes.linkInfo);
  assertEquals(linkInfo.getBigUint64(II.u), Deno.UnsafePointer.value(nodes.links[0]!));
  assertEquals(
    Deno.UnsafePointer.value(readPointer(nodes.links[0]!, IL.pNext)),
    Deno.UnsafePointer.value(nodes.links[1]!),
  );
  assertEquals(readLayerNodes(nodes.head).map((n) => n.function), [3, 2, 1, 0]);
});

Deno.test("device nodes: DATA_CALLBACK, LINK_INFO, then the app's structs with the device group unwrapped", () => {
  using arena = new Arena();
  const appPds = [fake(0xa1n), fake(0xa2n)];
  const group = writeStruct(arena, "VkDeviceGroupDeviceCreateInfo", {
    pPhysicalDevices: appPds.map((p) => asHandle("VkPhysicalDevice", p!)),
  });
  const features = writeStruct(arena, "VkPhysicalDeviceFeatures2", { pNext: group });
  const before = describe(
    iface.describeDevice,
    writeStruct(arena, "VkDeviceCreateInfo", { pNext: features }),
  );
  const unwrapped = unwrapDeviceGroup(arena, features, (pd) => fake(Deno.UnsafePointer.value(pd) + 0x100n));
  const nodes = buildDeviceNodes(arena, {
    next: unwrapped,
    links: [
      { getInstanceProcAddr: fake(0x1100n), getDeviceProcAddr: fake(0x1300n) },
      { getInstanceProcAddr: fake(0x2100n), getDeviceProcAddr: fake(0x2300n) },
    ],
    setDeviceLoaderData: fake(0xc8n),
  });
  const info = writeStruct(arena, "VkDeviceCreateInfo", { pNext: nodes.head });
  assertEquals(
    describe(iface.describeDevice, info),
    `C0xc8 L0x1100/0x1300;0x2100/0x2300; S1000059000 G0x1a1;0x1a2;`,
  );
  // The application's structs are untouched.
  assertEquals(before, `S1000059000 G0xa1;0xa2;`);
  assertEquals(
    describe(iface.describeDevice, writeStruct(arena, "VkDeviceCreateInfo", { pNext: features })),
    before,
  );
  assertStrictEquals(unwrapDeviceGroup(arena, null, (p) => p), null);
});

Deno.test("unwrapDeviceGroup returns the chain itself when there is no device group", () => {
  using arena = new Arena();
  const features = writeStruct(arena, "VkPhysicalDeviceFeatures2", {});
  assertEquals(hex(unwrapDeviceGroup(arena, features, () => null)), hex(features));
});

Deno.test({
  name: "the native vkSet*LoaderData copies the handle's dispatch word into the object; null gives -3",
  ignore: !hasX86_64Helpers(),
}, () => {
  const fn = nativeSetLoaderData();
  assert(fn !== null);
  assertStrictEquals(nativeSetLoaderData(), fn);
  const call = new Deno.UnsafeFnPointer(
    fn as Deno.PointerObject<never>,
    { parameters: ["pointer", "pointer"], result: "i32" } as const,
  );
  const handle = new BigUint64Array([0x7f00_1234_5678n, 1n]);
  const object = new BigUint64Array([0n, 2n]);
  assertEquals(call.call(Deno.UnsafePointer.of(handle), Deno.UnsafePointer.of(object)), 0);
  assertEquals([...object], [0x7f00_1234_5678n, 2n]);
  assertEquals(call.call(null, Deno.UnsafePointer.of(object)), -3);
  assertEquals(call.call(Deno.UnsafePointer.of(handle), null), -3);
});
