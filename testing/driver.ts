/**
 * {@linkcode MockDriver}: a Vulkan driver in TypeScript whose entry points are `Deno.UnsafeCallback`s, for
 * `Vulkan.load({ drivers })` or a manifest; each call passes device loss, faults and overrides before the
 * built-in behaviour (testing/commands.ts), and may be logged with its decoded arguments (docs/testing.md).
 *
 * @module
 */
import { GET_PROC_ADDR_CALLBACK } from "../vk/proc_addr.ts";
import { COMMAND_INDEX, COMMAND_PROVIDERS, COMMANDS } from "../vk/generated/commands.ts";
import { EXTENSIONS } from "../vk/generated/extensions.ts";
import type { CommandInfo } from "../vk/generated/types.ts";
import type { VkCommandName } from "../vk/generated/vk_commands.ts";
import { commandCallbackDef } from "../vk/command_ffi.ts";
import { CallbackOwner } from "../ffi/callback.ts";
import { readCString, readU32, writeU32 } from "../ffi/memory.ts";
import { resultName } from "../vk/errors.ts";
import { decodeCall, type Decoded, decodeResult } from "../layers/decode.ts";
import type { DriverEntryPoint } from "../loading/direct_driver.ts";
import { MockPresentation } from "./presentation.ts";
import { MockDeviceModel, type MockDeviceOptions } from "./device.ts";
import { type MockManifest, type MockManifestOptions, writeMockManifest } from "./manifest.ts";
import { type Behaviour, builtinBehaviour, deviceOf, type MockRuntime, R } from "./commands.ts";
import { handleKey } from "../vk/handle_key.ts";
import { hex, MockHandles, type MockInstanceState, type MockLogicalDevice } from "./state.ts";

type P = Deno.PointerValue;

/** A Vulkan command name (aliases included), as the typed command object knows them. */
export type MockCommandName = VkCommandName;

/** Options of {@linkcode MockDriver}. */
export interface MockDriverOptions {
  /** The driver's name: its manifest file name and what driver filters match (default `"vkdeno-mock"`). */
  readonly name?: string;
  /** What `vkEnumerateInstanceVersion` answers (default Vulkan 1.3). */
  readonly apiVersion?: number;
  /**
   * Instance extensions offered (default `VK_KHR_get_physical_device_properties2`), by name or with their
   * spec version.
   */
  readonly instanceExtensions?: readonly (string | { readonly name: string; readonly specVersion: number })[];
  /** The newest loader/driver interface it negotiates (default 7). */
  readonly interfaceVersion?: number;
  /** Its physical devices (default one default device): options, or models made from a profile. */
  readonly devices?: readonly (MockDeviceOptions | MockDeviceModel)[];
  /**
   * What a command the mock does not implement does: `"fail"` (default) answers it, and each call reports
   * `Mock driver "<name>": vkFoo is not implemented by the mock: returning VK_ERROR_UNKNOWN (give it a
   * behaviour with override("vkFoo", ...))` and returns `unimplementedResult`; `"absent"` leaves
   * it out (`vkGet*ProcAddr` answers NULL, as a driver without it would).
   */
  readonly unimplemented?: "fail" | "absent";
  /** The `VkResult` an unimplemented command returns (default `VK_ERROR_UNKNOWN`). */
  readonly unimplementedResult?: number;
  /** Keep a log of every call with its decoded arguments in {@linkcode MockDriver.calls} (default false). */
  readonly record?: boolean;
  /**
   * Where misuse the mock detects and calls of unimplemented commands go, besides
   * {@linkcode MockDriver.problems} (default: `console.error`, once per distinct message).
   */
  readonly onProblem?: (message: string) => void;
  /**
   * Make the entry points callable from other threads: a Worker's loader given this driver's
   * `getInstanceProcAddr` address calls into this isolate, which must be free to run them (awaiting, not
   * busy). The driver must then be disposed, or the process stays alive.
   */
  readonly threadSafe?: boolean;
  /**
   * Give a new non-dispatchable object (a buffer, a fence, ...) the handle of the most recently destroyed
   * one, as a driver that allocates its objects with `malloc` may (default false: every handle is new). For
   * testing code that keys anything on handle values.
   */
  readonly reuseHandles?: boolean;
}

/** One recorded call: the command, its arguments decoded after the call, and its result. */
export interface MockCallRecord {
  /** The command's name (the canonical one for an alias). */
  readonly command: string;
  /** This command's call number, from 1. */
  readonly call: number;
  /** The arguments, JSON-ready: handles as `"0x..."`, enums by name, 64-bit integers as decimal strings, structs followed. */
  readonly args: Readonly<Record<string, Decoded>>;
  /** The result (`"VK_SUCCESS"`, ...; null for `void`). */
  readonly result: Decoded;
}

/** What an {@linkcode MockDriver.override} function receives. */
export interface MockCall {
  /** The command. */
  readonly command: string;
  /** This command's call number, from 1. */
  readonly call: number;
  /** The raw FFI arguments (pointers as `Deno.PointerValue`, 64-bit values as bigints). */
  readonly args: readonly unknown[];
  /** The arguments decoded before the call (as in {@linkcode MockCallRecord.args}). */
  readonly decoded: Readonly<Record<string, Decoded>>;
  /** Runs the mock's own behaviour for this call and returns its result. */
  next(): unknown;
}

/** Options of {@linkcode MockDriver.fail}. */
export interface MockFaultOptions {
  /** Fail only the Nth call of the command (from 1, counting every call since the driver was made). */
  readonly call?: number;
  /** Fail the calls whose decoded arguments match. */
  readonly when?: (args: Readonly<Record<string, Decoded>>) => boolean;
  /** Fail at most this many calls (default: once with `call`, every match otherwise). */
  readonly times?: number;
}

/** A fault set with {@linkcode MockDriver.fail}: how often it fired; `remove()` takes it away. */
export interface MockFault {
  /** The command. */
  readonly command: string;
  /** Calls it failed so far. */
  readonly hits: number;
  /** Stops it. */
  remove(): void;
}

/** A live object of the mock, for assertions. */
export interface MockLiveObject {
  /** `VkBuffer`, `VkDeviceMemory`, ... */
  readonly type: string;
  /** The handle, as `"0x..."`. */
  readonly handle: string;
}

interface FaultRule {
  command: string;
  result: number;
  options: MockFaultOptions;
  hits: number;
  removed: boolean;
}

const NEGOTIATE_DEF = { parameters: ["pointer"], result: "i32" } as const;

function canonicalInfo(name: string, what: string): CommandInfo {
  const index = COMMAND_INDEX[name];
  if (index === undefined) throw new TypeError(`${what}: "${name}" is not a Vulkan command`);
  return COMMANDS[index]!;
}

const versions = new Map<string, number | undefined>();

function versionOf(provider: string): number | undefined {
  if (versions.has(provider)) return versions.get(provider);
  const m = /^VK_VERSION_(\d+)_(\d+)$/.exec(provider);
  const v = m ? (Number(m[1]) << 22) | (Number(m[2]) << 12) : undefined;
  versions.set(provider, v);
  return v;
}

function majorMinor(v: number): number {
  return v & ~0xfff;
}

/**
 * A Vulkan driver in TypeScript: physical devices from options or profiles, enough behaviour for an
 * application to run to completion, fault injection, overrides and a call log.
 *
 * @example An instance and its devices on a mock
 * ```ts
 * import { enumerate, VkScope, Vulkan, writeStruct } from "@vkdeno/loader";
 * import { MockDriver, mockEnvironment } from "@vkdeno/loader/testing";
 * using mock = new MockDriver({ devices: [{ name: "Test GPU" }, { name: "Second", type: "cpu" }] });
 * using isolated = mockEnvironment();
 * using vk = Vulkan.load({ drivers: [mock], env: isolated.env });
 * using scope = new VkScope(vk);
 * const instance = scope.create("vkCreateInstance", [writeStruct(scope.arena, "VkInstanceCreateInfo", {}), null]);
 * console.log(enumerate(vk.vkEnumeratePhysicalDevices, [instance]).length); // 2
 * ```
 */
export class MockDriver implements DriverEntryPoint, Disposable {
  /** The driver's name. */
  readonly name: string;
  /** Its `vk_icdGetInstanceProcAddr`. */
  readonly getInstanceProcAddr: Deno.PointerObject;
  /** Its `vk_icdNegotiateLoaderICDInterfaceVersion`. */
  readonly negotiateInterfaceVersion: Deno.PointerObject;
  /** Its `vk_icdGetPhysicalDeviceProcAddr`. */
  readonly getPhysicalDeviceProcAddr: Deno.PointerObject;
  /** Its physical devices' models. */
  readonly devices: readonly MockDeviceModel[];
  /**
   * Surfaces, swapchains and queries: the frames presented (RGBA), the surfaces' size, out-of-date and
   * suboptimal answers on demand, query results (docs/testing.md, "Presentation and queries").
   */
  readonly presentation: MockPresentation = new MockPresentation();
  readonly #options: MockDriverOptions;
  readonly #callbacks: CallbackOwner;
  readonly #entries = new Map<number, Deno.PointerObject>();
  readonly #counts = new Map<string, number>();
  readonly #faults = new Map<string, FaultRule[]>();
  #someLost = false;
  readonly #answers = new Map<string, Map<string, P>>();
  readonly #overrides = new Map<string, (call: MockCall) => unknown>();
  readonly #calls: MockCallRecord[] = [];
  readonly #problems: string[] = [];
  readonly #reported = new Set<string>();
  readonly #rt: MockRuntime;
  readonly #newestVersion: number;
  #record: boolean;
  #disposed = false;

  /**
   * A mock driver with `options.devices` as its physical devices.
   *
   * @throws {TypeError} If a device option names a struct, member, enum or format Vulkan does not have.
   */
  constructor(options: MockDriverOptions = {}) {
    this.#options = options;
    this.name = options.name ?? "vkdeno-mock";
    this.#record = options.record ?? false;
    this.devices = (options.devices ?? [{}]).map((d) =>
      d instanceof MockDeviceModel ? d : new MockDeviceModel(d)
    );
    this.#callbacks = new CallbackOwner({ report: (message) => this.#problem(message) });
    const instanceExtensions = (options.instanceExtensions ?? ["VK_KHR_get_physical_device_properties2"])
      .map((e) => typeof e === "string" ? { name: e, specVersion: 1 } : e);
    this.#rt = {
      name: this.name,
      apiVersion: options.apiVersion ?? ((1 << 22) | (3 << 12)),
      instanceExtensions,
      models: this.devices,
      handles: new MockHandles(options.reuseHandles ?? false),
      instances: new Map(),
      physicalDevices: new Map(),
      devices: new Map(),
      presentation: this.presentation,
      problem: (message) => this.#problem(message),
    };
    this.#newestVersion = Math.max(this.#rt.apiVersion, ...this.devices.map((d) => d.apiVersion));
    const threadSafe = options.threadSafe ?? false;
    this.getInstanceProcAddr = this.#callbacks.create(GET_PROC_ADDR_CALLBACK, (instance, pName) => {
      return this.#procAddr(instance, pName === null ? "" : readCString(pName));
    }, { name: `${this.name} vk_icdGetInstanceProcAddr`, threadSafe }).pointer;
    this.getPhysicalDeviceProcAddr = this.#callbacks.create(GET_PROC_ADDR_CALLBACK, (_instance, pName) => {
      const name = pName === null ? "" : readCString(pName);
      const index = COMMAND_INDEX[name];
      if (index === undefined || COMMANDS[index]!.level !== "physical_device") return null;
      return this.#provided(name, undefined) ? this.#entry(COMMANDS[index]!) : null;
    }, { name: `${this.name} vk_icdGetPhysicalDeviceProcAddr`, threadSafe }).pointer;
    this.negotiateInterfaceVersion = this.#callbacks.create(NEGOTIATE_DEF, (pVersion) => {
      if (pVersion === null) return R.ERROR_INITIALIZATION_FAILED;
      const offered = readU32(pVersion, 0);
      writeU32(pVersion, 0, Math.min(offered, options.interfaceVersion ?? 7));
      return R.SUCCESS;
    }, {
      name: `${this.name} vk_icdNegotiateLoaderICDInterfaceVersion`,
      onError: R.ERROR_INITIALIZATION_FAILED,
      threadSafe,
    })
      .pointer;
  }

  #problem(message: string): void {
    const text = `Mock driver "${this.name}": ${message}`;
    this.#problems.push(text);
    if (this.#options.onProblem) return this.#options.onProblem(text);
    if (this.#reported.has(text)) return;
    this.#reported.add(text);
    console.error(text);
  }

  /** Whether a name is offered: by a core version the driver has, or an extension it or a device offers. */
  #provided(name: string, device: MockLogicalDevice | undefined, instance?: MockInstanceState): boolean {
    const providers = COMMAND_PROVIDERS[name] ?? [];
    for (const p of providers) {
      const v = versionOf(p);
      if (v !== undefined) {
        const limit = device ? device.physical.model.apiVersion : this.#newestVersion;
        if (majorMinor(v) <= majorMinor(limit)) return true;
        continue;
      }
      const ext = EXTENSIONS[p];
      if (device) {
        if (device.extensions.includes(p) || device.physical.instance.extensions.includes(p)) return true;
      } else if (ext?.type === "instance") {
        if (
          instance ? instance.extensions.includes(p) : this.#rt.instanceExtensions.some((e) => e.name === p)
        ) {
          return true;
        }
      } else if (this.devices.some((d) => d.hasExtension(p))) return true;
    }
    return false;
  }

  #implemented(info: CommandInfo): boolean {
    return this.#options.unimplemented !== "absent" || info.name === "vkGetDeviceProcAddr" ||
      builtinBehaviour(info) !== undefined || this.#overrides.has(info.name);
  }

  #procAddr(instance: P, name: string): P {
    switch (name) {
      case "vk_icdNegotiateLoaderICDInterfaceVersion":
        return this.negotiateInterfaceVersion;
      case "vk_icdGetPhysicalDeviceProcAddr":
        return this.getPhysicalDeviceProcAddr;
      case "vk_icdGetInstanceProcAddr":
      case "vkGetInstanceProcAddr":
        return this.getInstanceProcAddr;
    }
    const index = COMMAND_INDEX[name];
    if (index === undefined) return null;
    const info = COMMANDS[index]!;
    if (instance === null) {
      if (info.level !== "global") return null;
      if (name === "vkEnumerateInstanceVersion" && majorMinor(this.#rt.apiVersion) < (1 << 22 | 1 << 12)) {
        return null;
      }
      return this.#entry(info);
    }
    const inst = this.#rt.instances.get(handleKey(instance));
    if (info.level !== "global" && !this.#provided(name, undefined, inst)) return null;
    return this.#implemented(info) ? this.#entry(info) : null;
  }

  #deviceProcAddr(device: P, name: string): P {
    if (name === "vkGetDeviceProcAddr") return this.#entry(COMMANDS[COMMAND_INDEX.vkGetDeviceProcAddr!]!);
    const index = COMMAND_INDEX[name];
    if (index === undefined) return null;
    const info = COMMANDS[index]!;
    if (info.level !== "device") return null;
    const d = this.#rt.devices.get(handleKey(device));
    if (!d) return null;
    // The loader asks for every device command at each vkCreateDevice: answers are kept per device
    // configuration (its model, the device's and the instance's extensions), and overrides can add some.
    const key = `${
      this.devices.indexOf(d.physical.model)
    }|${d.extensions.join()}|${d.physical.instance.extensions.join()}|${this.#overrides.size}`;
    let answers = this.#answers.get(key);
    if (!answers) this.#answers.set(key, answers = new Map());
    let answer = answers.get(name);
    if (answer === undefined) {
      answer = this.#provided(name, d) && this.#implemented(info) ? this.#entry(info) : null;
      answers.set(name, answer);
    }
    return answer;
  }

  /** The C entry point of a command (one callback per command, made when first asked for). */
  #entry(info: CommandInfo): Deno.PointerObject {
    const cached = this.#entries.get(info.index);
    if (cached) return cached;
    const def = commandCallbackDef(info);
    const result = def.result;
    const onError = result === "void"
      ? undefined
      : result === "pointer"
      ? null
      : result === "u64" || result === "i64"
      ? 0n
      : info.result === "VkResult"
      ? R.ERROR_UNKNOWN
      : 0;
    const body = info.name === "vkGetDeviceProcAddr"
      ? (device: unknown, pName: unknown) =>
        this.#deviceProcAddr(device as P, pName === null ? "" : readCString(pName as Deno.PointerObject))
      : this.#body(info, builtinBehaviour(info) ?? this.#unimplemented);
    const cb = this.#callbacks.create(def, body as never, {
      name: `${this.name} ${info.name}`,
      onError: onError as never,
      threadSafe: this.#options.threadSafe ?? false,
    });
    this.#entries.set(info.index, cb.pointer);
    return cb.pointer;
  }

  #body(info: CommandInfo, own: Behaviour): (...args: unknown[]) => unknown {
    return (...args) => this.#call(info, own, args);
  }

  #unimplemented: Behaviour = (_rt, _args, info) => {
    const result = this.#options.unimplementedResult ?? R.ERROR_UNKNOWN;
    this.#problem(
      `${info.name} is not implemented by the mock${
        info.result === "VkResult" ? `: returning ${resultName(result)}` : ""
      } (give it a behaviour with override("${info.name}", ...))`,
    );
    return info.result === "VkResult" ? result : info.result === "void" ? undefined : null;
  };

  /**
   * One call: a lost device's answer, else a fault's, else the override's or the mock's own behaviour;
   * then the log. The common case (no loss, fault, override or log) reads two maps and runs the behaviour.
   */
  #call(info: CommandInfo, own: Behaviour, args: unknown[]): unknown {
    const name = info.name;
    const n = (this.#counts.get(name) ?? 0) + 1;
    this.#counts.set(name, n);
    let result: unknown;
    let decoded: Record<string, Decoded> | undefined;
    const decode = () => decoded ??= decodeCall(info, args, { after: false });
    const faults = this.#faults.get(name);
    const device = (this.#someLost || faults) && info.level === "device"
      ? deviceOf(this.#rt, args[0] as P)
      : undefined;
    const fault = faults?.find((f) => !f.removed && this.#matches(f, n, decode));
    if (device?.lost && info.result === "VkResult") {
      result = R.ERROR_DEVICE_LOST;
    } else if (fault) {
      fault.hits++;
      result = fault.result;
      if (result === R.ERROR_DEVICE_LOST && device) this.#lose(device);
    } else {
      const override = this.#overrides.get(name);
      if (override === undefined) {
        result = own(this.#rt, args, info);
      } else {
        result = override({
          command: name,
          call: n,
          args,
          get decoded() {
            return decode();
          },
          next: () => own(this.#rt, args, info),
        });
      }
      if (info.result === "void") result = undefined;
    }
    if (this.#record) {
      this.#calls.push({
        command: name,
        call: n,
        args: decodeCall(info, args, { after: true }),
        result: decodeResult(info.result, result),
      });
    }
    return result;
  }

  #lose(device: MockLogicalDevice): void {
    device.lost = true;
    this.#someLost = true;
  }

  #matches(f: FaultRule, n: number, decode: () => Record<string, Decoded>): boolean {
    const { call, when, times } = f.options;
    if (f.hits >= (times ?? (call !== undefined ? 1 : Infinity))) return false;
    if (call !== undefined && n !== call) return false;
    return when ? when(decode()) : true;
  }

  /**
   * Makes `command` return `result` (a `VkResult`) instead of running: on every call, or (with the optional
   * `options`) on its Nth call (`call`), while `when` holds for its decoded arguments, at most `times` times. `VK_ERROR_DEVICE_LOST` from a
   * device-level command also loses that device (as {@linkcode MockDriver.loseDevice}).
   *
   * @example The second allocation runs out of device memory
   * ```ts
   * import { VK_ERROR_OUT_OF_DEVICE_MEMORY } from "@vkdeno/loader";
   * import { MockDriver } from "@vkdeno/loader/testing";
   * using mock = new MockDriver();
   * const fault = mock.fail("vkAllocateMemory", VK_ERROR_OUT_OF_DEVICE_MEMORY, { call: 2 });
   * console.log(fault.hits); // 0
   * ```
   * @throws {TypeError} If `command` is not a Vulkan command.
   */
  fail(command: MockCommandName, result: number, options?: MockFaultOptions): MockFault {
    const info = canonicalInfo(command, "MockDriver.fail");
    const rule: FaultRule = { command: info.name, result, options: options ?? {}, hits: 0, removed: false };
    const list = this.#faults.get(info.name);
    if (list) list.push(rule);
    else this.#faults.set(info.name, [rule]);
    return {
      command: info.name,
      get hits() {
        return rule.hits;
      },
      remove: () => {
        rule.removed = true;
      },
    };
  }

  /**
   * Replaces `command`'s behaviour with `fn`, which may call `call.next()` for the mock's own. Its return
   * value is the command's result. A later override of the same command replaces this one.
   *
   * @example Count submissions, then submit
   * ```ts
   * import { MockDriver } from "@vkdeno/loader/testing";
   * using mock = new MockDriver();
   * let submits = 0;
   * mock.override("vkQueueSubmit", (call) => (submits++, call.next()));
   * ```
   * @throws {TypeError} If `command` is not a Vulkan command.
   */
  override(command: MockCommandName, fn: (call: MockCall) => unknown): void {
    this.#overrides.set(canonicalInfo(command, "MockDriver.override").name, fn);
  }

  /**
   * Loses `device` (a `VkDevice` this driver made; every live one when left out): from now on each of its
   * commands that returns a `VkResult` returns `VK_ERROR_DEVICE_LOST`.
   *
   * @example Usage
   * ```ts
   * import { MockDriver } from "@vkdeno/loader/testing";
   * using mock = new MockDriver();
   * console.log(mock.loseDevice()); // 0 (no device yet)
   * ```
   * @returns How many devices were lost.
   * @throws {TypeError} If `device` is not a live device of this driver.
   */
  loseDevice(device?: Deno.PointerValue): number {
    if (device !== undefined) {
      const d = this.#rt.devices.get(handleKey(device));
      if (!d) {
        throw new TypeError(
          `MockDriver.loseDevice: "${hex(device)}" is not a live VkDevice of "${this.name}"`,
        );
      }
      this.#lose(d);
      return 1;
    }
    let n = 0;
    for (const d of this.#rt.devices.values()) if (!d.lost) this.#lose(d), n++;
    return n;
  }

  /** Starts (or stops) recording calls into {@linkcode MockDriver.calls}. */
  record(on = true): void {
    this.#record = on;
  }

  /** The recorded calls (with `record`), oldest first. */
  get calls(): readonly MockCallRecord[] {
    return this.#calls;
  }

  /** How many times `command` was called. */
  callCount(command: MockCommandName): number {
    return this.#counts.get(canonicalInfo(command, "MockDriver.callCount").name) ?? 0;
  }

  /** Misuse the mock detected and unimplemented commands called, one line each, oldest first. */
  get problems(): readonly string[] {
    return this.#problems;
  }

  /** Objects the application created on this driver's devices and has not destroyed (queues excluded). */
  liveObjects(): MockLiveObject[] {
    const out: MockLiveObject[] = [];
    for (const d of this.#rt.devices.values()) {
      for (const o of d.objects.values()) out.push({ type: o.type, handle: hex(o.key) });
    }
    return out;
  }

  /** The commands recorded into `commandBuffer` since its last begin or reset. */
  recordedCommands(commandBuffer: Deno.PointerValue): readonly string[] {
    const cb = this.#rt.handles.get(commandBuffer, "VkCommandBuffer");
    if (!cb) {
      throw new TypeError(
        `MockDriver.recordedCommands: "${hex(commandBuffer)}" is not a live VkCommandBuffer`,
      );
    }
    return [...cb.commands!];
  }

  /** Live instances, physical devices (per instance) and devices, for assertions. */
  get counts(): { readonly instances: number; readonly devices: number; readonly lostDevices: number } {
    const devices = [...this.#rt.devices.values()];
    return {
      instances: this.#rt.instances.size,
      devices: devices.length,
      lostDevices: devices.filter((d) => d.lost).length,
    };
  }

  /**
   * Writes a driver manifest for this mock (and the small library it names) into `options.folder` or a new
   * temp folder, so that discovery finds it like any driver: point `VK_DRIVER_FILES` (or a search folder) at
   * it. The manifest works in this process only, while the mock is alive.
   *
   * @example Usage
   * ```ts
   * import { Vulkan } from "@vkdeno/loader";
   * import { MockDriver } from "@vkdeno/loader/testing";
   * using mock = new MockDriver({ name: "found-mock" });
   * using manifest = mock.writeManifest();
   * using vk = Vulkan.load({ env: { vars: { VK_DRIVER_FILES: manifest.manifestPath }, elevated: false } });
   * console.log(manifest.manifestPath.endsWith("found-mock.json")); // true
   * ```
   */
  writeManifest(options: MockManifestOptions = {}): MockManifest {
    return writeMockManifest(this, options);
  }

  /** True after {@linkcode MockDriver.dispose}. */
  get disposed(): boolean {
    return this.#disposed;
  }

  /**
   * Closes the entry points. Destroy the instances and dispose the `Vulkan` objects that use this driver
   * first (`using` does so when the mock is declared before them), and let Workers finish their calls.
   */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#callbacks.dispose();
    this.#entries.clear();
  }

  /** Same as {@linkcode MockDriver.dispose}. */
  [Symbol.dispose](): void {
    this.dispose();
  }
}
