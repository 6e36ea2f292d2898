/**
 * The mutation check's fixed list (tools/mutate.ts): one single-token change each to hand-written library
 * code, the kind a real edit introduces. A fixed list keeps the table reproducible; an entry whose `find` no
 * longer matches is reported stale, to be updated with the code.
 *
 * @module
 */

/** What a mutation does to the code. */
export type MutantKind = "comparison" | "off-by-one" | "branch" | "logic" | "return";

/** One mutation: `find` (exactly once in `file`) replaced by `replace`. */
export interface Mutant {
  /** The file, from the repository root; its first folder is the room whose tests judge it. */
  readonly file: string;
  readonly find: string;
  readonly replace: string;
  readonly kind: MutantKind;
  /** The rule it breaks, in a few words. */
  readonly what: string;
}

/** The list, room by room. */
export const MUTANTS: readonly Mutant[] = [
  // api/
  {
    file: "api/compile.ts",
    find: "`if (r === 5 && attempt < 16) continue;`",
    replace: "`if (r === 5 && attempt < 0) continue;`",
    kind: "branch",
    what: "a two-call list that grew (VK_INCOMPLETE) is not asked for again",
  },
  {
    file: "api/compile.ts",
    find: "`const got = Math.min(${read}, n);`",
    replace: "`const got = n;`",
    kind: "return",
    what: "a two-call list that shrank returns the entries it was sized for",
  },
  {
    file: "api/compile.ts",
    find: "`if (r < 0) rt.fail(r, ${q(name)});`",
    replace: "`if (r < -1) rt.fail(r, ${q(name)});`",
    kind: "off-by-one",
    what: "VK_ERROR_OUT_OF_HOST_MEMORY (-1) is not thrown",
  },
  {
    file: "api/compile.ts",
    find: "`if (n${i}_${j} !== n${i}_0 && ${userOf[k]} != null)",
    replace: "`if (n${i}_${j} === n${i}_0 && ${userOf[k]} != null)",
    kind: "comparison",
    what: "arrays sharing one count are refused when they agree",
  },
  {
    file: "api/compile.ts",
    find: 'if (resultKind === 3) parts.push(["value", "r !== 0"]);',
    replace: 'if (resultKind === 3) parts.push(["value", "r === 0"]);',
    kind: "comparison",
    what: "a VkBool32 result is returned inverted",
  },
  {
    file: "api/call_memory.ts",
    find: "if (off + size > SIZE) return -1;",
    replace: "if (off + size >= SIZE) return -1;",
    kind: "off-by-one",
    what: "scratch memory that fits exactly is taken from the heap instead",
  },
  {
    file: "api/call_memory.ts",
    find: "if (p !== null) view.setBigUint64(i * 8, BigInt(Deno.UnsafePointer.value(p)), true);",
    replace: "if (p === null) view.setBigUint64(i * 8, BigInt(Deno.UnsafePointer.value(p)), true);",
    kind: "comparison",
    what: "pointer arrays are written as NULLs",
  },
  // chain/
  {
    file: "chain/table_fill.ts",
    find: "  for (let k = 0; k < fns.length; k++) {\n",
    replace: "  for (let k = 0; k < fns.length - 1; k++) {\n",
    kind: "off-by-one",
    what: "the last slot of a dispatch table is left empty",
  },
  {
    file: "chain/handle_check.ts",
    find: "if (seen.root) this.#endChildren(seen.root.address);",
    replace: "if (false) this.#endChildren(seen.root!.address);",
    kind: "branch",
    what: "checked mode: destroying a device does not end what was made from it",
  },
  {
    file: "chain/handle_check.ts",
    find: "    this.#children.get(tracked.parent)?.delete(k);\n    this.#endChildren(k);\n",
    replace: "    this.#children.get(tracked.parent)?.delete(k);\n",
    kind: "return",
    what: "checked mode: destroying a pool does not end its command buffers",
  },
  {
    file: "chain/handle_check.ts",
    find: 'if (typeof result === "number" && result < 0) return;',
    replace: 'if (typeof result === "number" && result <= 0) return;',
    kind: "off-by-one",
    what: "checked mode: nothing a successful command made is recorded",
  },
  {
    file: "chain/handle_check.ts",
    find: "if (tracked && context !== undefined && owner !== context && sameKind(owner!, context)) {",
    replace: "if (tracked && context !== undefined && owner === context && sameKind(owner!, context)) {",
    kind: "comparison",
    what: "checked mode: a handle of another device passes, one of the same device is refused",
  },
  {
    file: "chain/order/id_filters.ts",
    find: "value >= r.first && value <= r.last",
    replace: "value > r.first && value <= r.last",
    kind: "off-by-one",
    what: "an ID filter range leaves out its first ID",
  },
  {
    file: "chain/order/sort.ts",
    find: "return select !== undefined && d.vendorID === select.vendorID && d.deviceID === select.deviceID;",
    replace:
      "return select !== undefined && d.vendorID === select.vendorID || d.deviceID === select?.deviceID;",
    kind: "logic",
    what: "the selected device is matched by vendor or device ID alone",
  },
  {
    file: "chain/order/sort.ts",
    find: "const t = typeRank(b.deviceType) - typeRank(a.deviceType);",
    replace: "const t = typeRank(a.deviceType) - typeRank(b.deviceType);",
    kind: "comparison",
    what: "the device sort puts the lower device type first",
  },
  {
    file: "chain/order/chain_filter.ts",
    find: "return (inst.apiVersion & 0x1fffffff) >= VK_API_VERSION_1_1 ||",
    replace: "return (inst.apiVersion & 0x1fffffff) > VK_API_VERSION_1_1 ||",
    kind: "off-by-one",
    what: "a Vulkan 1.1 instance is taken for one without vkGetPhysicalDeviceProperties2",
  },
  {
    file: "chain/order/policy.ts",
    find: "driverIndex(b.item) - driverIndex(a.item) || a.i - b.i",
    replace: "driverIndex(a.item) - driverIndex(b.item) || a.i - b.i",
    kind: "comparison",
    what: "devices enumerate in discovery order instead of reverse discovery order",
  },
  // discovery/
  {
    file: "discovery/filter.ts",
    find: 'if (starts && ends) return { text, kind: "substring", value: lower.slice(1, -1) };',
    replace: 'if (starts || ends) return { text, kind: "substring", value: lower.slice(1, -1) };',
    kind: "logic",
    what: "a prefix or suffix glob is taken for a substring one",
  },
  {
    file: "discovery/filter.ts",
    find: "if (filters.length === MAX_FILTERS) {",
    replace: "if (filters.length === MAX_FILTERS + 1) {",
    kind: "off-by-one",
    what: "one filter more than the limit is kept",
  },
  {
    file: "discovery/drivers.ts",
    find: "if (disable.length > 0 && matchesAnyFilter(disable, fileName) && !selected) {",
    replace: "if (disable.length > 0 && matchesAnyFilter(disable, fileName) || !selected) {",
    kind: "logic",
    what: "a driver not selected is disabled whatever the disable filter says",
  },
  {
    file: "discovery/drivers.ts",
    find: "if (select.length > 0 && !selected) {",
    replace: "if (false) {",
    kind: "branch",
    what: "VK_LOADER_DRIVERS_SELECT selects nothing out",
  },
  {
    file: "discovery/search_paths.ts",
    find: 'return name.endsWith(".json");',
    replace: 'return name.endsWith("json");',
    kind: "off-by-one",
    what: 'a name ending in "json" without the dot counts as a manifest',
  },
  {
    file: "discovery/search_paths.ts",
    find: 'if (entry !== "" && !out.includes(entry)) out.push(entry);',
    replace: 'if (entry !== "") out.push(entry);',
    kind: "branch",
    what: "a search folder named twice is scanned twice",
  },
  {
    file: "discovery/meta_layers.ts",
    find: "if (majorMinor(component.apiVersion) < majorMinor(meta.apiVersion)) {",
    replace: "if (majorMinor(component.apiVersion) > majorMinor(meta.apiVersion)) {",
    kind: "comparison",
    what: "a meta layer keeps a component older than itself",
  },
  {
    file: "discovery/driver_manifest.ts",
    find: "if ((formatParsed.packed & 0x1fffffff) > NEWEST_FORMAT) {",
    replace: "if ((formatParsed.packed & 0x1fffffff) >= NEWEST_FORMAT) {",
    kind: "off-by-one",
    what: "a manifest of the newest known file format is called newer than known",
  },
  {
    file: "discovery/layer_activation.ts",
    find: "if (((active.layer.apiVersion >>> 12) & 0x1ffff) < appMajorMinor) {",
    replace: "if (((active.layer.apiVersion >>> 12) & 0x1ffff) <= appMajorMinor) {",
    kind: "off-by-one",
    what: "an implicit layer of the application's own Vulkan version is called too old",
  },
  // loading/
  {
    file: "loading/driver.ts",
    find: "if (interfaceVersion > CURRENT_LOADER_ICD_INTERFACE_VERSION) {",
    replace: "if (interfaceVersion > CURRENT_LOADER_ICD_INTERFACE_VERSION + 1) {",
    kind: "off-by-one",
    what: "a driver answering interface 8 when offered 7 is kept",
  },
  {
    file: "loading/driver.ts",
    find: "if (interfaceVersion < MIN_SUPPORTED_LOADER_ICD_INTERFACE_VERSION) {",
    replace: "if (interfaceVersion <= MIN_SUPPORTED_LOADER_ICD_INTERFACE_VERSION) {",
    kind: "off-by-one",
    what: "a driver negotiating the oldest supported interface is refused",
  },
  {
    file: "loading/driver.ts",
    find: "  if (interfaceVersion >= 3) {\n    gpdpa = exported(library",
    replace: "  if (interfaceVersion > 3) {\n    gpdpa = exported(library",
    kind: "off-by-one",
    what: "an interface 3 driver's vk_icdGetPhysicalDeviceProcAddr is not looked up",
  },
  {
    file: "loading/direct_driver.ts",
    find: "iface > 7",
    replace: "iface > 8",
    kind: "off-by-one",
    what: "a direct driver answering interface 8 is kept",
  },
  {
    file: "loading/layer_library.ts",
    find: "if (answered > CURRENT_LOADER_LAYER_INTERFACE_VERSION) {",
    replace: "if (answered > CURRENT_LOADER_LAYER_INTERFACE_VERSION + 1) {",
    kind: "off-by-one",
    what: "a layer answering one interface version above the offer is kept",
  },
  {
    file: "loading/layer_library.ts",
    find: "if (this.#entry.refs > 0 || this.#entry.pinned) return;",
    replace: "if (this.#entry.refs > 0 && this.#entry.pinned) return;",
    kind: "logic",
    what: "a layer library still in use is closed",
  },
  // testing/
  {
    file: "testing/driver.ts",
    find: "if (call !== undefined && n !== call) return false;",
    replace: "if (call !== undefined && n === call) return false;",
    kind: "comparison",
    what: "a fault set for the Nth call fires on every other call",
  },
  {
    file: "testing/driver.ts",
    find: "if (f.hits >= (times ?? (call !== undefined ? 1 : Infinity))) return false;",
    replace: "if (f.hits > (times ?? (call !== undefined ? 1 : Infinity))) return false;",
    kind: "off-by-one",
    what: "a fault fires once more than asked",
  },
  {
    file: "testing/commands.ts",
    find: "if (d.heapUsed[type.heapIndex]! + size > heap.size) return R.ERROR_OUT_OF_DEVICE_MEMORY;",
    replace: "if (d.heapUsed[type.heapIndex]! + size > heap.size + 1n) return R.ERROR_OUT_OF_DEVICE_MEMORY;",
    kind: "off-by-one",
    what: "the mock's heap holds one byte more than its size",
  },
  {
    file: "testing/commands.ts",
    find: "  const m = Math.min(room, n);\n",
    replace: "  const m = n;\n",
    kind: "return",
    what: "the mock fills more entries than the application made room for",
  },
  {
    file: "testing/driver.ts",
    find: "if (majorMinor(v) <= majorMinor(limit)) return true;",
    replace: "if (majorMinor(v) < majorMinor(limit)) return true;",
    kind: "off-by-one",
    what: "a command of the device's own Vulkan version is not provided",
  },
  // layers/
  {
    file: "layers/chassis.ts",
    find: 'return typeof result === "number" && result >= 0;',
    replace: 'return typeof result === "number" && result > 0;',
    kind: "off-by-one",
    what: "a TS layer sees VK_SUCCESS creations as failed (no object recorded)",
  },
  {
    file: "layers/chassis.ts",
    find: "for (let i = 0; i < pre.length && !ctx.skipped; i++) {",
    replace: "for (let i = 0; i < pre.length || !ctx.skipped; i++) {",
    kind: "logic",
    what: "a skipped call still runs the later layers' pre-call hooks",
  },
  {
    file: "layers/chassis.ts",
    find: "if (this.layers.some((l) => l.name === layer.name)) {",
    replace: "if (this.layers.some((l) => l.name !== layer.name)) {",
    kind: "comparison",
    what: "a second, different TS layer is refused as a duplicate",
  },
  {
    file: "layers/layer.ts",
    find: 'if (name !== "vkGetInstanceProcAddr" && name !== "vkGetDeviceProcAddr") out[name] = hooks;',
    replace: 'if (name !== "vkGetInstanceProcAddr" || name !== "vkGetDeviceProcAddr") out[name] = hooks;',
    kind: "logic",
    what: "a TS layer may hook the proc-addr commands",
  },
  // ffi/
  {
    file: "ffi/dispatch.ts",
    find: "    for (let k = 0; k < slots.length; k++) {\n      const s = slots[k]! * 2",
    replace: "    for (let k = 0; k < slots.length - 1; k++) {\n      const s = slots[k]! * 2",
    kind: "off-by-one",
    what: "DispatchTable.setAll leaves the last slot empty",
  },
  {
    file: "ffi/dispatch.ts",
    find: "to[s] = isNone ? emptyA! : a;",
    replace: "to[s] = isNone ? a : emptyA!;",
    kind: "comparison",
    what: "DispatchTable.setAll writes the empty function over the found ones",
  },
  {
    file: "ffi/memory.ts",
    find:
      '  offset ??= 0;\n  return new Deno.UnsafePointerView(nonNull(ptr, "read a pointer")).getPointer(offset);',
    replace:
      '  offset ??= 8;\n  return new Deno.UnsafePointerView(nonNull(ptr, "read a pointer")).getPointer(offset);',
    kind: "off-by-one",
    what: "readPointer without an offset reads the next pointer",
  },
  // wsi/
  {
    file: "wsi/surface.ts",
    find: "if (!Number.isInteger(index) || index < 0 || index >= this.driverCount) {",
    replace: "if (!Number.isInteger(index) || index < 0 || index > this.driverCount) {",
    kind: "off-by-one",
    what: "a surface's driver slot one past the end is accepted",
  },
  {
    file: "wsi/terminators.ts",
    find: "      if (driver.interfaceVersion < 3) continue;\n      const fn = this.#driverFn(driver, name);",
    replace:
      "      if (driver.interfaceVersion < 2) continue;\n      const fn = this.#driverFn(driver, name);",
    kind: "off-by-one",
    what: "an interface 2 driver is asked to create its own surface",
  },
  {
    file: "wsi/terminators.ts",
    find: "return [...requested].filter((e) => surfaceExtensions.has(e) && !offered.has(e));",
    replace: "return [...requested].filter((e) => surfaceExtensions.has(e) || !offered.has(e));",
    kind: "logic",
    what: "every extension the drivers lack is taken for a surface extension the loader provides",
  },
];
