/**
 * The fault catalogue run through the Khronos loader (`VK_LOADER_DEBUG=all vulkaninfo --summary`, 30 s
 * limit), each fault beside lavapipe: pins what the reference does, so docs/reliability.md's side-by-side table
 * stays true. With `RELIAB_RECORD=<file>` it also writes the measured outcomes as JSON.
 */

import { deepStrictEqual as assertEquals, match as assertMatch } from "node:assert/strict";
import {
  buildFaultLibraries,
  faultVariables,
  LIBRARY_FAULTS,
  MockEnvironment,
} from "../support/reliability_faults.ts";
import { goodDriverManifest, MANIFEST_FAULTS } from "../support/reliability_manifests.ts";
import { LAVAPIPE, LAVAPIPE_LIBRARY } from "../support/lavapipe.ts";

/** What the Khronos loader did. */
interface Outcome {
  /** "exit 0", "exit 1", or the signal that killed vulkaninfo ("SIGSEGV"), or "timeout". */
  end: string;
  /** How many lavapipe devices vulkaninfo listed. */
  llvmpipe: number;
}

/** Measured with libvulkan1 1.3.239 (Debian 12) and vulkaninfo 1.3.239. */
const EXPECTED: Record<string, Outcome & { log?: RegExp }> = {
  library_missing: { end: "exit 0", llvmpipe: 1, log: /cannot open shared object file/ },
  not_elf: { end: "exit 0", llvmpipe: 1, log: /file too short/ },
  wrong_class: { end: "exit 0", llvmpipe: 1, log: /wrong bit-type/ },
  wrong_machine: { end: "exit 0", llvmpipe: 1, log: /Failed loading library/ },
  missing_dependency: { end: "exit 0", llvmpipe: 1, log: /libreliab_gone\.so: cannot open shared object/ },
  missing_exports: { end: "exit 0", llvmpipe: 1, log: /Attempt to retrieve either 'vkGetInstanceProcAddr'/ },
  negotiation_fails: { end: "exit 0", llvmpipe: 1, log: /doesn't support interface version compatible/ },
  // accepted silently: the forwarding driver's lavapipe device shows up a second time
  impossible_version: { end: "exit 0", llvmpipe: 2 },
  null_gipa_create_instance: { end: "exit 0", llvmpipe: 1, log: /Could not get 'vkCreateInstance'/ },
  // dropped silently: no message names it
  null_gipa_enumerate: { end: "exit 0", llvmpipe: 1 },
  // ICD_LOADER_MAGIC is only asserted in debug builds: the mock's device is listed beside lavapipe
  no_loader_magic: { end: "exit 0", llvmpipe: 1 },
  create_instance_fails: { end: "exit 0", llvmpipe: 1, log: /Failed to CreateInstance in ICD 0/ },
  enumerate_fails: {
    end: "exit 1",
    llvmpipe: 0,
    log: /'vkEnumeratePhysicalDevices' failed with error 0xfffffffd/,
  },
  create_device_fails: { end: "exit 1", llvmpipe: 0, log: /terminator_CreateDevice: Failed in ICD/ },
  layer_chain_error: {
    end: "exit 1",
    llvmpipe: 0,
    log: /vkCreateInstance failed with ERROR_INITIALIZATION_FAILED/,
  },
  layer_device_error: { end: "exit 1", llvmpipe: 0, log: /vkCreateDevice: +Failed to create device chain/ },
  layer_error_after_down: { end: "SIGSEGV", llvmpipe: 0 },
  layer_no_call_down: { end: "SIGSEGV", llvmpipe: 0 },
  layer_null_create: { end: "exit 1", llvmpipe: 0, log: /Failed to find 'vkCreateInstance'/ },
  layer_impossible_version: { end: "exit 0", llvmpipe: 1 },
  layer_library_missing: { end: "exit 0", llvmpipe: 1, log: /libnone\.so: cannot open shared object file/ },
};

const decoder = new TextDecoder();
const recorded: Record<string, Outcome & { line?: string }> = {};

async function vulkaninfo(vars: Record<string, string>, limit = 30): Promise<Outcome & { text: string }> {
  const out = await new Deno.Command("timeout", {
    args: ["-s", "KILL", String(limit), "vulkaninfo", "--summary"],
    env: { ...vars, VK_LOADER_DEBUG: "all", PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = decoder.decode(out.stdout) + decoder.decode(out.stderr);
  const end = out.code === 124 || out.signal === "SIGKILL" || out.code === 137
    ? "timeout"
    : out.signal !== null
    ? out.signal
    : `exit ${out.code}`;
  return { end, llvmpipe: (text.match(/deviceName\s*=\s*llvmpipe/g) ?? []).length, text };
}

function firstLine(text: string, log: RegExp | undefined): string | undefined {
  const lines = text.split("\n").filter((l) =>
    /^(ERROR|WARNING|INFO)/.test(l) && !l.includes("Loader Message")
  );
  return log ? lines.find((l) => log.test(l)) : undefined;
}

const available = (() => {
  for (const dir of (Deno.env.get("PATH") ?? "/usr/bin").split(":")) {
    try {
      if (Deno.statSync(`${dir}/vulkaninfo`).isFile) return true;
    } catch {
      // not in this folder
    }
  }
  return false;
})();

for (const fault of LIBRARY_FAULTS) {
  Deno.test({
    name: `Khronos loader, fault ${fault.id}: ${fault.fault}`,
    ignore: !available,
    async fn() {
      const build = await buildFaultLibraries();
      await using env = await MockEnvironment.create();
      const setup = await fault.setup(env, build);
      const got = await vulkaninfo(faultVariables(env, setup));
      const want = EXPECTED[fault.id]!;
      const line = firstLine(got.text, want.log);
      recorded[fault.id] = { end: got.end, llvmpipe: got.llvmpipe, line: line?.replace(env.root, "<tree>") };
      assertEquals({ end: got.end, llvmpipe: got.llvmpipe }, { end: want.end, llvmpipe: want.llvmpipe });
      if (want.log) assertMatch(got.text, want.log);
    },
  });
}

/**
 * Where the Khronos loader differs from "skip it, list lavapipe once": it reads a 5 MiB manifest (and so
 * lists the lavapipe it names a second time), overflows its stack on 200,000 nested arrays, and opens a
 * FIFO named *.json and blocks on it (measured past 30 s; 5 s here).
 */
const MANIFEST_EXPECTED: Record<string, Outcome> = {
  huge: { end: "exit 0", llvmpipe: 2 },
  deep: { end: "SIGSEGV", llvmpipe: 0 },
  fifo: { end: "timeout", llvmpipe: 0 },
};

for (const fault of MANIFEST_FAULTS.filter((f) => !f.needsUnprivileged)) {
  Deno.test({
    name: `Khronos loader, manifest fault ${fault.id}: ${fault.fault}`,
    ignore: !available,
    async fn() {
      const dir = Deno.makeTempDirSync({ prefix: "vkdeno_khr_" });
      try {
        const good = goodDriverManifest(LAVAPIPE_LIBRARY, "1.1.230");
        fault.write(dir, good);
        const want = MANIFEST_EXPECTED[fault.id] ?? { end: "exit 0", llvmpipe: 1 };
        const limit = want.end === "timeout" ? 5 : 30;
        const got = await vulkaninfo({ VK_DRIVER_FILES: `${dir}:${LAVAPIPE}`, HOME: dir }, limit);
        recorded[`manifest_${fault.id}`] = { end: got.end, llvmpipe: got.llvmpipe };
        assertEquals({ end: got.end, llvmpipe: got.llvmpipe }, want);
      } finally {
        Deno.removeSync(dir, { recursive: true });
      }
    },
  });
}

Deno.test({
  name: "Khronos loader: record outcomes (RELIAB_RECORD)",
  ignore: Deno.env.get("RELIAB_RECORD") === undefined,
  fn() {
    Deno.writeTextFileSync(Deno.env.get("RELIAB_RECORD")!, JSON.stringify(recorded, null, 2) + "\n");
  },
});
