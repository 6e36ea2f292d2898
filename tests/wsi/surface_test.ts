import assert from "node:assert/strict";
import { Arena } from "../../ffi/memory.ts";
import { STRUCTS } from "../../vk/generated/structs.ts";
import {
  SURFACE_CREATE_COMMANDS,
  SURFACE_SLOTS_OFFSET,
  SurfaceTable,
  VK_ICD_WSI_PLATFORM,
} from "../../wsi/surface.ts";
import { runC } from "../support/wsi.ts";
import { cc } from "../support/c_build.ts";

const ICD_TYPES: Record<string, string> = {
  xlib: "VkIcdSurfaceXlib",
  xcb: "VkIcdSurfaceXcb",
  wayland: "VkIcdSurfaceWayland",
  headless: "VkIcdSurfaceHeadless",
  display: "VkIcdSurfaceDisplay",
};

const HEADER = `
#define VK_USE_PLATFORM_XLIB_KHR
#define VK_USE_PLATFORM_XCB_KHR
#define VK_USE_PLATFORM_WAYLAND_KHR
#include <vulkan/vk_icd.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>
`;

Deno.test("container heads have the VkIcdSurface* layouts of vk_icd.h", async () => {
  const lines: string[] = [];
  for (const info of Object.values(SURFACE_CREATE_COMMANDS)) {
    const t = ICD_TYPES[info.platform]!;
    lines.push(`printf("${info.platform}.size %zu\\n", sizeof(${t}));`);
    lines.push(`printf("${info.platform}.base %zu\\n", offsetof(${t}, base));`);
    for (const [field] of info.fields) {
      lines.push(`printf("${info.platform}.${field} %zu\\n", offsetof(${t}, ${field}));`);
    }
  }
  const platforms = Object.keys(VK_ICD_WSI_PLATFORM).map((p) =>
    `printf("platform.${p} %d\\n", VK_ICD_WSI_PLATFORM_${p.toUpperCase()});`
  );
  const c = await runC(`${HEADER}int main(void) {\n${[...lines, ...platforms].join("\n")}\nreturn 0; }`);
  const ours: Record<string, number> = {};
  for (const info of Object.values(SURFACE_CREATE_COMMANDS)) {
    ours[`${info.platform}.size`] = info.icdSize;
    ours[`${info.platform}.base`] = 0;
    for (const [field, offset] of info.fields) ours[`${info.platform}.${field}`] = offset;
    assert.ok(info.icdSize <= SURFACE_SLOTS_OFFSET);
  }
  for (const [p, v] of Object.entries(VK_ICD_WSI_PLATFORM)) ours[`platform.${p}`] = v;
  assert.deepEqual(c, ours);
});

Deno.test("every contained create-info member has the size of its VkIcdSurface* field", () => {
  for (const [command, info] of Object.entries(SURFACE_CREATE_COMMANDS)) {
    const members = STRUCTS[info.createInfo]!.members;
    const offsets = [...info.fields.map(([, o]) => o), info.icdSize];
    info.fields.forEach(([name, offset], i) => {
      const m = members.find((x) => x.name === name);
      assert.ok(m, `${command}: ${info.createInfo}.${name}`);
      // Copied byte for byte: the next field (or the struct's end) must leave room for this one.
      assert.ok(offset + m.size <= offsets[i + 1]!, `${command}: ${name} overlaps the next field`);
    });
  }
});

Deno.test("xlib, xcb, display and headless containers read, from C, as their VkIcdSurface structs", async () => {
  using arena = new Arena();
  using table = new SurfaceTable(3);
  const ci = arena.alloc(STRUCTS.VkXlibSurfaceCreateInfoKHR!.size);
  const v = new DataView(ci.buffer, ci.byteOffset);
  v.setBigUint64(24, 0x1234_5678_9abcn, true); // dpy
  v.setBigUint64(32, 0x4000_0123n, true); // window
  const s = table.create("vkCreateXlibSurfaceKHR", arena.pointer(ci));
  const xcbInfo = arena.alloc(STRUCTS.VkXcbSurfaceCreateInfoKHR!.size);
  const xv = new DataView(xcbInfo.buffer, xcbInfo.byteOffset);
  xv.setBigUint64(24, 0xfeed_0000n, true); // connection
  xv.setUint32(32, 0x60_0007, true); // window
  const x = table.create("vkCreateXcbSurfaceKHR", arena.pointer(xcbInfo));
  const dInfo = arena.alloc(STRUCTS.VkDisplaySurfaceCreateInfoKHR!.size);
  const dv = new DataView(dInfo.buffer, dInfo.byteOffset);
  dv.setBigUint64(24, 0xd15bn, true); // displayMode
  dv.setUint32(32, 2, true); // planeIndex
  dv.setUint32(36, 1, true); // planeStackIndex
  dv.setUint32(40, 4, true); // transform
  dv.setFloat32(44, 0.5, true); // globalAlpha
  dv.setUint32(48, 2, true); // alphaMode
  dv.setUint32(52, 640, true);
  dv.setUint32(56, 480, true);
  const d = table.create("vkCreateDisplayPlaneSurfaceKHR", arena.pointer(dInfo));
  const h = table.createEmpty("headless");
  // A driver reads the container through the C structs: so does this dlopen'd reader.
  const lib = await buildReader();
  try {
    const r = lib.symbols;
    assert.equal(r.platform(s.handle), VK_ICD_WSI_PLATFORM.xlib);
    assert.equal(BigInt(r.xlib_dpy(s.handle)), 0x1234_5678_9abcn);
    assert.equal(BigInt(r.xlib_window(s.handle)), 0x4000_0123n);
    assert.equal(r.platform(x.handle), VK_ICD_WSI_PLATFORM.xcb);
    assert.equal(BigInt(r.xcb_connection(x.handle)), 0xfeed_0000n);
    assert.equal(r.xcb_window(x.handle), 0x60_0007);
    assert.equal(r.platform(d.handle), VK_ICD_WSI_PLATFORM.display);
    assert.equal(BigInt(r.display_mode(d.handle)), 0xd15bn);
    assert.equal(r.display_sum(d.handle), 2 * 1 + 1 * 10 + 4 * 100 + 2 * 1000 + 640 * 10000 + 480 * 100000);
    assert.equal(r.display_alpha(d.handle), 0.5);
    assert.equal(r.platform(h.handle), VK_ICD_WSI_PLATFORM.headless);
  } finally {
    lib.close();
    await Deno.remove(lib.dir, { recursive: true });
  }
});

async function buildReader() {
  const dir = await Deno.makeTempDir({ prefix: "vkdeno-wsi-reader-" });
  await Deno.writeTextFile(
    `${dir}/reader.c`,
    `${HEADER}
int platform(VkIcdSurfaceBase *s) { return s->platform; }
unsigned long xlib_dpy(VkIcdSurfaceXlib *s) { return (unsigned long)s->dpy; }
unsigned long xlib_window(VkIcdSurfaceXlib *s) { return s->window; }
unsigned long xcb_connection(VkIcdSurfaceXcb *s) { return (unsigned long)s->connection; }
unsigned xcb_window(VkIcdSurfaceXcb *s) { return s->window; }
unsigned long display_mode(VkIcdSurfaceDisplay *s) { return (unsigned long)s->displayMode; }
unsigned display_sum(VkIcdSurfaceDisplay *s) {
  return s->planeIndex + s->planeStackIndex * 10 + s->transform * 100 + s->alphaMode * 1000 +
         s->imageExtent.width * 10000 + s->imageExtent.height * 100000;
}
float display_alpha(VkIcdSurfaceDisplay *s) { return s->globalAlpha; }
`,
  );
  await cc(["-shared", "-fPIC", `${dir}/reader.c`, "-o", `${dir}/reader.so`]);
  const lib = Deno.dlopen(`${dir}/reader.so`, {
    platform: { parameters: ["pointer"], result: "i32" },
    xlib_dpy: { parameters: ["pointer"], result: "u64" },
    xlib_window: { parameters: ["pointer"], result: "u64" },
    xcb_connection: { parameters: ["pointer"], result: "u64" },
    xcb_window: { parameters: ["pointer"], result: "u32" },
    display_mode: { parameters: ["pointer"], result: "u64" },
    display_sum: { parameters: ["pointer"], result: "u32" },
    display_alpha: { parameters: ["pointer"], result: "f32" },
  });
  return Object.assign(lib, { dir });
}

Deno.test("a driver gets its own surface when it made one, else the container", () => {
  using table = new SurfaceTable(3);
  const s = table.createEmpty("xcb");
  s.setDriverSurface(1, 0xabcdefn);
  assert.equal(table.surfaceForDriver(s.handle, 0), s.handle);
  assert.equal(Deno.UnsafePointer.value(table.surfaceForDriver(s.handle, 1)), 0xabcdefn);
  assert.equal(table.surfaceForDriver(s.address, 2), s.handle);
  assert.equal(s.driverSurface(2), 0n);
  assert.equal(
    new DataView(s.bytes.buffer, s.bytes.byteOffset).getBigUint64(SURFACE_SLOTS_OFFSET + 8, true),
    0xabcdefn,
  );
  assert.throws(() => s.forDriver(3), /Driver index "3" is out of range for a surface with 3 slots/);
  assert.equal(table.surfaceForDriver(null, 0), null);
  assert.equal(table.size, 1);
  assert.equal(table.destroy(s.handle), s);
  assert.equal(table.size, 0);
  assert.equal(table.destroy(s.handle), undefined);
});

Deno.test("creating a surface with an unknown command or NULL create info throws", () => {
  using table = new SurfaceTable(1);
  assert.throws(
    () => table.create("vkCreateBufferView", null),
    /Command "vkCreateBufferView" does not create a surface/,
  );
  assert.throws(() => table.create("vkCreateXcbSurfaceKHR", null), /pCreateInfo is NULL/);
});
