/**
 * The mock's surfaces, swapchains and queries: headless surfaces, swapchains whose images are host memory
 * (presented frames kept as RGBA bytes), acquire and present answering out-of-date or suboptimal on demand,
 * timestamp and occlusion query pools with results a test chooses ({@linkcode MockPresentation}).
 *
 * @module
 */
import { readU32, readU64, writeU32, writeU64 } from "../ffi/memory.ts";
import { type HandleKey, handleKey } from "../vk/handle_key.ts";
import { at, hex, type MockHandles, type MockLogicalDevice, type MockObject, ptr, u32 } from "./state.ts";

type P = Deno.PointerValue;

/** What the presentation behaviours need of the mock's runtime. */
export interface PresentationRuntime {
  readonly handles: MockHandles;
  readonly presentation: MockPresentation;
  problem(message: string): void;
}

/** One presented image: which swapchain and image, its extent and format, its bytes as RGBA. */
export interface MockFrame {
  /** The swapchain's handle (`"0x..."`). */
  readonly swapchain: string;
  /** The image index presented. */
  readonly imageIndex: number;
  /** The swapchain's extent. */
  readonly width: number;
  /** The swapchain's extent. */
  readonly height: number;
  /** The swapchain's `VkFormat`. */
  readonly format: number;
  /** The image's bytes when presented, as RGBA (a BGRA format swapped). */
  readonly rgba: Uint8Array;
}

interface Swapchain {
  readonly object: MockObject;
  readonly width: number;
  readonly height: number;
  readonly format: number;
  readonly images: MockObject[];
  next: number;
  answer: "out-of-date" | "suboptimal" | undefined;
}

const R = { SUCCESS: 0, SUBOPTIMAL: 1000001003, OUT_OF_DATE: -1000001004, NOT_READY: 1 } as const;
const BGRA = new Set([44, 50]); // VK_FORMAT_B8G8R8A8_UNORM, _SRGB

/** What the behaviours keep behind a {@linkcode MockPresentation}: images, swapchains, pools, clears. */
export class PresentationState {
  /** Images' host bytes by image handle key. */
  readonly images: Map<HandleKey, Uint8Array> = new Map();
  /** Swapchains by handle key. */
  readonly swapchains: Map<HandleKey, Swapchain> = new Map();
  /** Query pools by handle key: type and size. */
  readonly queryPools: Map<HandleKey, { type: number; count: number }> = new Map();
  /** Image views' images, framebuffers' views, render passes' attachment load ops (to run clears). */
  readonly views: Map<HandleKey, HandleKey> = new Map();
  /** Framebuffers' attachments (image view keys). */
  readonly framebuffers: Map<HandleKey, HandleKey[]> = new Map();
  /** Render passes' attachments' load ops. */
  readonly renderPasses: Map<HandleKey, number[]> = new Map();
  /** What a recorded command buffer does to swapchain images when submitted, by its command list. */
  readonly #actions = new WeakMap<string[], (() => void)[]>();

  /** Adds an action to a command buffer's recording (`commands`: its list of recorded names). */
  record(commands: string[], action: () => void): void {
    const list = this.#actions.get(commands);
    if (list) list.push(action);
    else this.#actions.set(commands, [action]);
  }

  /** Runs a submitted command buffer's actions. */
  execute(commands: string[]): void {
    for (const action of this.#actions.get(commands) ?? []) action();
  }

  /**
   * Fills `area` of swapchain image `imageKey` with an RGBA float colour, as a render pass's clear or
   * `vkCmdClearColorImage` would (UNORM bytes, in the image's byte order).
   */
  clear(
    imageKey: HandleKey,
    color: readonly number[],
    area?: { x: number; y: number; width: number; height: number },
  ): void {
    const bytes = this.images.get(imageKey);
    const s = [...this.swapchains.values()].find((c) => c.images.some((i) => i.key === imageKey));
    if (!bytes || !s) return;
    const c = color.map((v) => Math.round(Math.min(Math.max(v, 0), 1) * 255));
    const px = BGRA.has(s.format) ? [c[2]!, c[1]!, c[0]!, c[3]!] : c;
    const { x = 0, y = 0, width = s.width, height = s.height } = area ?? {};
    for (let row = y; row < Math.min(y + height, s.height); row++) {
      for (let col = x; col < Math.min(x + width, s.width); col++) bytes.set(px, (row * s.width + col) * 4);
    }
  }
}

const states = new WeakMap<MockPresentation, PresentationState>();

/** The internal state of `presentation` (for the mock's behaviours). */
export function presentationState(presentation: MockPresentation): PresentationState {
  let state = states.get(presentation);
  if (!state) states.set(presentation, state = new PresentationState());
  return state;
}

/**
 * A mock driver's presentation state, as `mock.presentation`: the frames presented, the surfaces' size, and
 * the answers of acquire, present and query results. The driver must offer `VK_KHR_surface` and
 * `VK_EXT_headless_surface` (`instanceExtensions`) and a device `VK_KHR_swapchain` (its `extensions`).
 *
 * @example A resize the driver reports
 * ```ts
 * import { MockDriver } from "@vkdeno/loader/testing";
 * using mock = new MockDriver({
 *   instanceExtensions: ["VK_KHR_surface", "VK_EXT_headless_surface"],
 *   devices: [{ extensions: ["VK_KHR_swapchain"] }],
 * });
 * mock.presentation.resize(640, 480); // swapchains of another size now answer VK_SUBOPTIMAL_KHR
 * console.log(mock.presentation.frames.length); // 0
 * ```
 */
export class MockPresentation {
  /** Frames presented, oldest first; the last `keepFrames` are kept. */
  readonly frames: MockFrame[] = [];
  /** How many presented frames `frames` keeps (default 16). */
  keepFrames = 16;
  /**
   * The surfaces' `currentExtent`; undefined (the default) reports 0xFFFFFFFF, the application's choice,
   * as headless surfaces do.
   */
  extent: { width: number; height: number } | undefined;
  /** A timestamp query's value by query index (default: 1000 ticks per index). */
  timestamp: (query: number) => bigint = (query) => BigInt(query) * 1000n;
  /** An occlusion query's sample count by query index (default 0). */
  occlusion: (query: number) => bigint = () => 0n;
  /**
   * The surfaces take this size (a window resized): swapchains of another extent answer acquire and present
   * with `answer` (default `"suboptimal"`; `"out-of-date"` as most X11 drivers do) until recreated.
   */
  resize(width: number, height: number, answer?: "out-of-date" | "suboptimal"): void {
    answer ??= "suboptimal";
    this.extent = { width, height };
    for (const s of presentationState(this).swapchains.values()) {
      if (s.width !== width || s.height !== height) s.answer = answer;
    }
  }

  /** Every live swapchain answers its next acquire and present with `VK_ERROR_OUT_OF_DATE_KHR` until recreated. */
  outOfDate(): void {
    for (const s of presentationState(this).swapchains.values()) s.answer = "out-of-date";
  }

  /** Every live swapchain answers acquire and present with `VK_SUBOPTIMAL_KHR` until recreated. */
  suboptimal(): void {
    for (const s of presentationState(this).swapchains.values()) s.answer = "suboptimal";
  }

  /** The host bytes behind a swapchain image (width x height x 4), which a test may write. */
  imageBytes(image: Deno.PointerValue): Uint8Array | undefined {
    return presentationState(this).images.get(handleKey(image));
  }
}

function write2(
  pCount: P,
  pItems: P,
  n: number,
  size: number,
  put: (i: number, p: Deno.PointerObject) => void,
) {
  if (pItems === null) return writeU32(pCount, 0, n), R.SUCCESS;
  const m = Math.min(readU32(pCount, 0), n);
  for (let i = 0; i < m; i++) put(i, Deno.UnsafePointer.offset(pItems, i * size)!);
  writeU32(pCount, 0, m);
  return m < n ? 5 : R.SUCCESS; // VK_INCOMPLETE
}

function signal(rt: PresentationRuntime, semaphore: unknown, fence: unknown): void {
  const s = semaphore === null ? undefined : rt.handles.get(semaphore as P, "VkSemaphore");
  if (s) s.signaled = true;
  const f = fence === null ? undefined : rt.handles.get(fence as P, "VkFence");
  if (f) f.signaled = true;
}

const answerOf = (s: Swapchain) =>
  s.answer === "out-of-date" ? R.OUT_OF_DATE : s.answer === "suboptimal" ? R.SUBOPTIMAL : R.SUCCESS;

/**
 * The behaviours of the surface, swapchain and query commands; `liveDevice` finds the device a `VkDevice`
 * handle stands for.
 */
export function presentationBehaviours(
  liveDevice: (rt: PresentationRuntime, handle: unknown) => MockLogicalDevice | undefined,
): Record<string, (rt: PresentationRuntime, args: unknown[]) => unknown> {
  return {
    vkCreateHeadlessSurfaceEXT: (rt, [, , , pSurface]) => {
      writeU64(pSurface as P, 0, BigInt(rt.handles.plain("VkSurfaceKHR", undefined).key));
      return R.SUCCESS;
    },
    vkDestroySurfaceKHR: (rt, [, surface]) => {
      const o = surface === null ? undefined : rt.handles.get(surface as P, "VkSurfaceKHR");
      if (o) rt.handles.remove(o);
    },
    vkGetPhysicalDeviceSurfaceSupportKHR: (_rt, [, , , pSupported]) => {
      writeU32(pSupported as P, 0, 1);
      return R.SUCCESS;
    },
    vkGetPhysicalDeviceSurfaceCapabilitiesKHR: (rt, [, , p]) => {
      const C = "VkSurfaceCapabilitiesKHR";
      const out = p as Deno.PointerObject;
      const e = rt.presentation.extent;
      writeU32(out, at(C, "minImageCount"), 2);
      writeU32(out, at(C, "maxImageCount"), 8);
      writeU32(out, at(C, "currentExtent"), e?.width ?? 0xffffffff);
      writeU32(out, at(C, "currentExtent") + 4, e?.height ?? 0xffffffff);
      writeU32(out, at(C, "minImageExtent"), 1);
      writeU32(out, at(C, "minImageExtent") + 4, 1);
      writeU32(out, at(C, "maxImageExtent"), 16384);
      writeU32(out, at(C, "maxImageExtent") + 4, 16384);
      writeU32(out, at(C, "maxImageArrayLayers"), 1);
      writeU32(out, at(C, "supportedTransforms"), 1); // IDENTITY
      writeU32(out, at(C, "currentTransform"), 1);
      writeU32(out, at(C, "supportedCompositeAlpha"), 1); // OPAQUE
      // COLOR_ATTACHMENT | TRANSFER_SRC | TRANSFER_DST
      writeU32(out, at(C, "supportedUsageFlags"), 0x10 | 0x1 | 0x2);
      return R.SUCCESS;
    },
    vkGetPhysicalDeviceSurfaceFormatsKHR: (_rt, [, , pCount, pFormats]) =>
      write2(pCount as P, pFormats as P, 2, 8, (i, p) => {
        writeU32(p, 0, i === 0 ? 44 : 37); // B8G8R8A8_UNORM, R8G8B8A8_UNORM
        writeU32(p, 4, 0); // SRGB_NONLINEAR
      }),
    vkGetPhysicalDeviceSurfacePresentModesKHR: (_rt, [, , pCount, pModes]) =>
      write2(pCount as P, pModes as P, 3, 4, (i, p) => writeU32(p, 0, [2, 1, 0][i]!)), // FIFO, MAILBOX, IMMEDIATE
    vkCreateSwapchainKHR: (rt, [device, pCreateInfo, , pSwapchain]) => {
      const d = liveDevice(rt, device);
      if (!d) return rt.problem(`vkCreateSwapchainKHR: device "${hex(device as P)}" is not live`), -3;
      const ci = pCreateInfo as Deno.PointerObject;
      const S = "VkSwapchainCreateInfoKHR";
      const width = readU32(ci, at(S, "imageExtent")), height = readU32(ci, at(S, "imageExtent") + 4);
      const count = Math.max(u32(ci, S, "minImageCount"), 2);
      const old = ptr(ci, S, "oldSwapchain");
      const previous = old === null
        ? undefined
        : presentationState(rt.presentation).swapchains.get(handleKey(old as P));
      if (previous) previous.answer = "out-of-date"; // a retired swapchain presents no more
      const object = rt.handles.plain("VkSwapchainKHR", d);
      const images = Array.from({ length: count }, () => {
        const image = rt.handles.plain("VkImage", d);
        image.size = BigInt(width * height * 4);
        presentationState(rt.presentation).images.set(image.key, new Uint8Array(width * height * 4));
        return image;
      });
      presentationState(rt.presentation).swapchains.set(object.key, {
        object,
        width,
        height,
        format: u32(ci, S, "imageFormat"),
        images,
        next: 0,
        answer: undefined,
      });
      writeU64(pSwapchain as P, 0, BigInt(object.key));
      return R.SUCCESS;
    },
    vkDestroySwapchainKHR: (rt, [, swapchain]) => {
      const s = swapchain === null
        ? undefined
        : presentationState(rt.presentation).swapchains.get(handleKey(swapchain as P));
      if (!s) {
        return swapchain === null
          ? undefined
          : rt.problem(`vkDestroySwapchainKHR: "${hex(swapchain as P)}" is not a live VkSwapchainKHR`);
      }
      for (const image of s.images) {
        rt.handles.remove(image), presentationState(rt.presentation).images.delete(image.key);
      }
      presentationState(rt.presentation).swapchains.delete(s.object.key);
      rt.handles.remove(s.object);
    },
    vkGetSwapchainImagesKHR: (rt, [, swapchain, pCount, pImages]) => {
      const s = presentationState(rt.presentation).swapchains.get(handleKey(swapchain as P));
      if (!s) {
        return rt.problem(`vkGetSwapchainImagesKHR: "${hex(swapchain as P)}" is not a live VkSwapchainKHR`),
          -3;
      }
      return write2(
        pCount as P,
        pImages as P,
        s.images.length,
        8,
        (i, p) => writeU64(p, 0, BigInt(s.images[i]!.key)),
      );
    },
    vkAcquireNextImageKHR: (rt, [, swapchain, , semaphore, fence, pIndex]) => {
      const s = presentationState(rt.presentation).swapchains.get(handleKey(swapchain as P));
      if (!s) {
        return rt.problem(`vkAcquireNextImageKHR: "${hex(swapchain as P)}" is not a live VkSwapchainKHR`), -3;
      }
      if (s.answer === "out-of-date") return R.OUT_OF_DATE;
      writeU32(pIndex as P, 0, s.next);
      s.next = (s.next + 1) % s.images.length;
      signal(rt, semaphore, fence);
      return answerOf(s);
    },
    vkQueuePresentKHR: (rt, [, pPresentInfo]) => {
      const I = "VkPresentInfoKHR";
      const info = pPresentInfo as Deno.PointerObject;
      const n = u32(info, I, "swapchainCount");
      const swapchains = ptr(info, I, "pSwapchains"), indices = ptr(info, I, "pImageIndices");
      const results = ptr(info, I, "pResults");
      let worst: number = R.SUCCESS;
      for (let i = 0; i < n; i++) {
        const s = presentationState(rt.presentation).swapchains.get(handleKey(readU64(swapchains, i * 8)));
        let result: number = R.OUT_OF_DATE;
        if (s) {
          result = answerOf(s);
          const index = readU32(indices, i * 4);
          if (result !== R.OUT_OF_DATE) {
            const bytes = presentationState(rt.presentation).images.get(s.images[index]!.key)!.slice();
            if (BGRA.has(s.format)) {
              for (let p = 0; p < bytes.length; p += 4) [bytes[p], bytes[p + 2]] = [bytes[p + 2]!, bytes[p]!];
            }
            const frames = rt.presentation.frames;
            frames.push({
              swapchain: hex(s.object.key),
              imageIndex: index,
              width: s.width,
              height: s.height,
              format: s.format,
              rgba: bytes,
            });
            if (frames.length > rt.presentation.keepFrames) frames.shift();
          }
        }
        if (results !== null) writeU32(results, i * 4, result);
        if (result === R.OUT_OF_DATE || (result === R.SUBOPTIMAL && worst === R.SUCCESS)) worst = result;
      }
      return worst;
    },
    vkCreateQueryPool: (rt, [device, pCreateInfo, , pPool]) => {
      const d = liveDevice(rt, device);
      if (!d) return -3;
      const Q = "VkQueryPoolCreateInfo";
      const o = rt.handles.plain("VkQueryPool", d);
      const ci = pCreateInfo as Deno.PointerObject;
      presentationState(rt.presentation).queryPools.set(o.key, {
        type: u32(ci, Q, "queryType"),
        count: u32(ci, Q, "queryCount"),
      });
      writeU64(pPool as P, 0, BigInt(o.key));
      return R.SUCCESS;
    },
    vkDestroyQueryPool: (rt, [, pool]) => {
      const o = pool === null ? undefined : rt.handles.get(pool as P, "VkQueryPool");
      if (o) rt.handles.remove(o), presentationState(rt.presentation).queryPools.delete(o.key);
    },
    vkResetQueryPool: () => undefined,
    vkGetQueryPoolResults: (rt, [, pool, first, count, dataSize, pData, stride, flags]) => {
      const q = presentationState(rt.presentation).queryPools.get(handleKey(pool as P));
      if (!q) return rt.problem(`vkGetQueryPoolResults: "${hex(pool as P)}" is not a live VkQueryPool`), -3;
      const f = flags as number, wide = (f & 0x1) !== 0, availability = (f & 0x4) !== 0;
      const size = wide ? 8 : 4;
      const step = Number(stride as bigint);
      if (first as number + (count as number) > q.count) {
        return rt.problem(
          `vkGetQueryPoolResults: queries ${first}..${
            first as number + (count as number) - 1
          } are past the pool's ${q.count}`,
        ),
          -3;
      }
      if (step * ((count as number) - 1) + size * (availability ? 2 : 1) > Number(dataSize as bigint)) {
        return rt.problem(`vkGetQueryPoolResults: dataSize ${dataSize} is too small for ${count} results`),
          -3;
      }
      for (let i = 0; i < (count as number); i++) {
        const query = (first as number) + i;
        // VK_QUERY_TYPE_OCCLUSION 0, VK_QUERY_TYPE_TIMESTAMP 2; other types read 0.
        const v = q.type === 2
          ? rt.presentation.timestamp(query)
          : q.type === 0
          ? rt.presentation.occlusion(query)
          : 0n;
        const at = i * step;
        if (wide) {
          writeU64(pData as P, at, BigInt.asUintN(64, v)), availability && writeU64(pData as P, at + 8, 1n);
        } else {writeU32(pData as P, at, Number(BigInt.asUintN(32, v))),
            availability && writeU32(pData as P, at + 4, 1);}
      }
      return R.SUCCESS;
    },
  };
}
