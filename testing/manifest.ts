/**
 * A mock driver for discovery: a driver manifest naming a tiny shared object the kit emits (ffi/elf.ts),
 * whose three driver entry points jump to the mock's callbacks; any loader of this process loads it like a
 * driver's library (docs/testing.md).
 *
 * @module
 */
import { emitStubObject, type StubArch } from "../ffi/elf.ts";
import { HOST } from "../ffi/host.ts";

/** The entry points a manifest's library jumps to. */
export interface MockEntryPoints {
  /** The driver's name: the manifest's file name without `.json`. */
  readonly name: string;
  /** `vk_icdGetInstanceProcAddr`. */
  readonly getInstanceProcAddr: Deno.PointerObject;
  /** `vk_icdNegotiateLoaderICDInterfaceVersion`. */
  readonly negotiateInterfaceVersion: Deno.PointerObject;
  /** `vk_icdGetPhysicalDeviceProcAddr`. */
  readonly getPhysicalDeviceProcAddr: Deno.PointerObject;
}

/** Options of {@linkcode writeMockManifest}. */
export interface MockManifestOptions {
  /** The folder to write into (default a new temp folder, removed with the manifest). */
  readonly folder?: string;
  /** The manifest's `ICD.api_version` (default `"1.3.0"`). */
  readonly apiVersion?: string;
  /** `ICD.is_portability_driver`. */
  readonly isPortabilityDriver?: boolean;
}

/** A written manifest and library; `remove()` (or `using`) deletes them. */
export interface MockManifest extends Disposable {
  /** The manifest file (`<folder>/<name>.json`). */
  readonly manifestPath: string;
  /** The emitted library it names (`<folder>/<name>.so`). */
  readonly libraryPath: string;
  /** The folder holding both. */
  readonly folder: string;
  /** Deletes the files (and the folder when the kit made it). */
  remove(): void;
}

/** The code of one export: jump to `target`, an absolute address. */
function jumpCode(target: bigint, arch: StubArch): Uint8Array {
  const out = new Uint8Array(16);
  const view = new DataView(out.buffer);
  if (arch === "x86_64") {
    out.fill(0xcc);
    out.set([0x48, 0xb8]); // movabs rax, imm64
    view.setBigUint64(2, target, true);
    out.set([0xff, 0xe0], 10); // jmp rax
  } else {
    view.setUint32(0, 0x58000050, true); // ldr x16, #8
    view.setUint32(4, 0xd61f0200, true); // br x16
    view.setBigUint64(8, target, true);
  }
  return out;
}

/**
 * The ELF shared object exporting the three driver entry points, each a jump to `entry`'s callback.
 *
 * @example Usage
 * ```ts ignore
 * const bytes = emitMockLibrary(mock, "x86_64");
 * ```
 * @throws {TypeError} On an architecture with no emitter.
 */
export function emitMockLibrary(entry: MockEntryPoints, arch: string = HOST.arch): Uint8Array {
  if (arch !== "x86_64" && arch !== "aarch64") {
    throw new TypeError(
      `Cannot emit a mock driver library for "${arch}": only x86_64 and aarch64 are supported`,
    );
  }
  const exports: [string, Deno.PointerObject][] = [
    ["vk_icdGetInstanceProcAddr", entry.getInstanceProcAddr],
    ["vk_icdNegotiateLoaderICDInterfaceVersion", entry.negotiateInterfaceVersion],
    ["vk_icdGetPhysicalDeviceProcAddr", entry.getPhysicalDeviceProcAddr],
  ];
  const { bytes } = emitStubObject(exports.map(([n]) => n), arch, (out, at, index) => {
    out.set(jumpCode(BigInt(Deno.UnsafePointer.value(exports[index]![1])), arch), at);
  });
  return bytes;
}

let written = 0;

/**
 * Writes `<folder>/<name>.json` and the library it names, for a mock driver of this process.
 *
 * @example Usage
 * ```ts ignore
 * using manifest = writeMockManifest(mock);
 * using vk = Vulkan.load({ env: { vars: { VK_DRIVER_FILES: manifest.manifestPath }, elevated: false } });
 * ```
 */
export function writeMockManifest(entry: MockEntryPoints, options: MockManifestOptions = {}): MockManifest {
  const made = options.folder === undefined;
  const folder = options.folder ?? Deno.makeTempDirSync({ prefix: "vkdeno-mock-" });
  // A unique library name: the dynamic linker keeps a loaded library by its path.
  const libraryPath = `${folder}/${entry.name}-${Deno.pid}-${++written}.so`;
  const manifestPath = `${folder}/${entry.name}.json`;
  Deno.writeFileSync(libraryPath, emitMockLibrary(entry));
  const icd: Record<string, unknown> = {
    library_path: libraryPath,
    api_version: options.apiVersion ?? "1.3.0",
  };
  if (options.isPortabilityDriver) icd.is_portability_driver = true;
  Deno.writeTextFileSync(
    manifestPath,
    JSON.stringify({ file_format_version: "1.0.1", ICD: icd }, null, 2) + "\n",
  );
  const remove = () => {
    for (const p of made ? [folder] : [manifestPath, libraryPath]) {
      try {
        Deno.removeSync(p, { recursive: true });
      } catch (error) {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      }
    }
  };
  return { manifestPath, libraryPath, folder, remove, [Symbol.dispose]: remove };
}
