/**
 * Child process of tools/gpu_check.ts: two TS layers over the compute example, run twice (two instances,
 * two devices), `script` (installLayers) or `native` (`.ts` manifests below the validation layer); prints
 * `GPU_TSLAYERS <json>`.
 *
 * @module
 */

import { runCompute } from "../examples/compute.ts";
import { snapshotProcessEnvironment, type VkCommandSource, Vulkan } from "../mod.ts";
import { defineLayer, importLayerModules, installLayers } from "../layers/mod.ts";

/** What the child prints after `GPU_TSLAYERS `. */
export interface TsLayersProbe {
  placement: "script" | "native";
  /** What the layers' objects saw, in order (no handles: the same in both placements when all is well). */
  events: string[];
  /** Objects made (the upper layer's per instance and per device, the lower layer's) and disposed. */
  objects: { instances: number; devices: number; readerInstances: number; disposed: number };
  /** The pNext types of vkCreateDevice's create info as the lower layer read them, per device. */
  chains: string[][];
  /** One per compute run: the device name and the values not doubled. */
  compute: { device: string; wrong: number }[];
  /** Import errors of the layer modules (native). */
  errors: string[];
}

const events: string[] = [];
const objects = { instances: 0, devices: 0, readerInstances: 0, disposed: 0 };
const chains: string[][] = [];

/** The upper layer: one object per instance and per device, counting dispatches; edits vkCreateDevice. */
export const objectsLayer = defineLayer({
  name: "VK_LAYER_gpucheck_objects",
  description: "gpu_check: counts its objects and dispatches, enables shaderDrawParameters",
  create(env) {
    const id = `instance ${++objects.instances}`;
    events.push(`objects: create ${id}${env.handle === null ? "" : " (handle already set)"}`);
    return {
      id,
      intercepts: {
        vkCreateInstance: { postCallRecord: (ctx) => void events.push(`objects: ${id} made, ${ctx.result}`) },
        vkCreateDevice: {
          preCallRecord(ctx) {
            ctx.extendChain(1, { type: "VkPhysicalDeviceVulkan11Features", shaderDrawParameters: true });
          },
        },
      },
      dispose() {
        objects.disposed++;
        events.push(`objects: dispose ${id}`);
      },
    };
  },
  createDevice(env, instance) {
    const id = `${instance.id} device ${++objects.devices}`;
    let dispatches = 0, submits = 0;
    events.push(`objects: create ${id}${env.physicalDevice === null ? " without a physical device" : ""}`);
    return {
      intercepts: {
        vkCmdDispatch: { preCallRecord: () => void dispatches++ },
        vkQueueSubmit: { postCallRecord: (ctx) => void (ctx.result === 0 && submits++) },
        vkDestroyDevice: {
          preCallRecord: () =>
            void events.push(`objects: ${id} destroyed after ${dispatches} dispatch, ${submits} submit`),
        },
      },
      dispose() {
        objects.disposed++;
        events.push(`objects: dispose ${id}`);
      },
    };
  },
});

/** The lower layer: reads the vkCreateDevice chain the upper layer edited. */
export const readerLayer = defineLayer({
  name: "VK_LAYER_gpucheck_reader",
  description: "gpu_check: reads vkCreateDevice's pNext chain",
  create() {
    const id = `instance ${++objects.readerInstances}`;
    events.push(`reader: create ${id}`);
    return {
      intercepts: {
        vkCreateDevice: {
          preCallRecord(ctx) {
            const chain = ctx.chain(1);
            chains.push(chain.map((link) => link.type));
            const edit = chain.find((link) => link.type === "VkPhysicalDeviceVulkan11Features");
            events.push(
              `reader: vkCreateDevice chain has VkPhysicalDeviceVulkan11Features: ${
                edit === undefined ? "no" : `shaderDrawParameters ${edit.shaderDrawParameters}`
              }`,
            );
          },
          postCallRecord: (ctx) => void events.push(`reader: vkCreateDevice -> ${ctx.result}`),
        },
      },
      dispose() {
        objects.disposed++;
        events.push(`reader: dispose ${id}`);
      },
    };
  },
});

const LAYER_FILES = { objects: objectsLayer, reader: readerLayer } as const;

/** A temp folder of `.ts` layer manifests, each naming a module that re-exports one layer of this file. */
function writeManifests(): string {
  const dir = Deno.makeTempDirSync({ prefix: "gpu_tslayers_" });
  const self = import.meta.url;
  for (const [file, layer] of Object.entries(LAYER_FILES)) {
    const exported = file === "objects" ? "objectsLayer" : "readerLayer";
    Deno.writeTextFileSync(`${dir}/${file}.ts`, `export { ${exported} as default } from "${self}";\n`);
    Deno.writeTextFileSync(
      `${dir}/${file}.json`,
      JSON.stringify({
        file_format_version: "1.2.0",
        layer: {
          name: layer.name,
          type: "GLOBAL",
          library_path: `./${file}.ts`,
          api_version: "1.3.0",
          implementation_version: "1",
          description: layer.description,
        },
      }),
    );
  }
  return dir;
}

async function main(placement: "script" | "native", count: number): Promise<TsLayersProbe> {
  const compute: TsLayersProbe["compute"] = [];
  const twice = (vk: VkCommandSource) => {
    for (let i = 0; i < 2; i++) {
      const r = runCompute(vk, { count });
      compute.push({ device: r.device.name, wrong: r.wrong });
    }
  };
  let errors: string[] = [];
  if (placement === "script") {
    using base = Vulkan.load();
    using vk = installLayers(base, { layers: [objectsLayer, readerLayer] });
    twice(vk as unknown as VkCommandSource);
  } else {
    const dir = writeManifests();
    try {
      const process = snapshotProcessEnvironment();
      const env = {
        ...process,
        vars: {
          ...process.vars,
          // VK_ADD_LAYER_PATH is ignored where VK_LAYER_PATH is set (the validation layer's folder).
          ...(process.vars.VK_LAYER_PATH
            ? { VK_LAYER_PATH: `${process.vars.VK_LAYER_PATH}:${dir}` }
            : { VK_ADD_LAYER_PATH: dir }),
          // The first named is the nearest the application: validation, then the two TS layers.
          VK_INSTANCE_LAYERS: `VK_LAYER_KHRONOS_validation:${objectsLayer.name}:${readerLayer.name}`,
        },
      };
      const imported = await importLayerModules(env);
      errors = imported.errors;
      using vk = Vulkan.load({ env, layerModules: imported.layers });
      twice(vk);
    } finally {
      Deno.removeSync(dir, { recursive: true });
    }
  }
  return { placement, events, objects, chains, compute, errors };
}

if (import.meta.main) {
  // No top-level await: the manifests' modules import this module, which must have finished evaluating.
  const placement = Deno.args[0] === "native" ? "native" : "script";
  main(placement, Number(Deno.args[1] ?? 1 << 20)).then(
    (probe) => console.log(`GPU_TSLAYERS ${JSON.stringify(probe)}`),
    (error) => {
      console.error(error);
      Deno.exit(1);
    },
  );
}
