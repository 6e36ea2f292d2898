/**
 * BENCHMARKS.md's targets table: measured cells from the kept runs, a machine's earlier cells kept where its
 * runs are not here, retired targets left out, and README's figures read back from the table.
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import type { PairedOutput } from "../../bench/_paired.ts";
import { parseTargets, readmeFigures, RETIRED, targetsSection } from "../../bench/_report_targets.ts";

const RETIRED_LABEL = [...RETIRED.keys()][0]!;

function runs(load: number, vkdeno: number[]): PairedOutput {
  return {
    kind: "vkdeno-paired",
    file: "bench/percall_bench.ts",
    date: "2026-11-27T10:00:00.000Z",
    machine: { cpu: "Test CPU", cores: 2, os: "linux 6", runtime: "Deno 2", load, commit: "abc1234" },
    groups: [{
      name: "g",
      baseline: "libvulkan",
      unit: "ns",
      cases: [
        { name: "libvulkan", batch: 1, samples: [10, 10, 10] },
        { name: "vkdeno", batch: 1, samples: vkdeno },
      ],
    }],
    targets: [
      {
        label: "vkGetDeviceQueue, no layers: vkdeno public / libvulkan export",
        group: "g",
        case: "vkdeno",
        against: "libvulkan",
        op: "<=",
        limit: 1.05,
      },
      { label: RETIRED_LABEL, group: "g", case: "vkdeno", against: "libvulkan", op: "<=", limit: 1 },
    ],
  };
}

const EARLIER = `# Benchmarks

## Targets

| target | bench | goal | lavapipe | H100 |
| --- | --- | ---: | --- | --- |
| repeated, no layers: vkdeno / libvulkan, instance + device | \`create_bench.ts\` | <= 1 | 1.07x (1.04x to 1.07x): **missed**, 7% over | 0.99x: met |

Measured on:

- lavapipe, \`bench/create_bench.ts\`: commit f195317, 2026-11-24, AMD EPYC (2 cores), linux 6.18,
  Deno 2.9.6; 3 runs, 1-minute load average 0.2-0.4
- H100, \`bench/create_bench.ts\`: commit f195317, 2026-11-24, Xeon (16 cores); 3 runs, 1-minute load average 0.5

## Per call
`;

Deno.test("targets table: kept runs fill their column, earlier cells stay where no runs are kept", () => {
  const dir = Deno.makeTempDirSync();
  try {
    Deno.writeTextFileSync(
      `${dir}/percall_bench.json`,
      JSON.stringify([runs(0.5, [10, 10, 10]), runs(1.5, [11, 12, 11])]),
    );
    const section = targetsSection(EARLIER, ["bench/percall_bench.ts", "bench/create_bench.ts"], [
      { name: "lavapipe", dir },
      { name: "H100", dir: `${dir}/none` },
    ]);
    const table = parseTargets(`x\n${section}`);
    assertEquals(table.rows.map((r) => [r.label, r.cells.get("lavapipe"), r.cells.get("H100") ?? ""]), [
      ["vkGetDeviceQueue, no layers: vkdeno public / libvulkan export", "1.05x (1.00x to 1.10x): met", ""],
      [
        "repeated, no layers: vkdeno / libvulkan, instance + device",
        "1.07x (1.04x to 1.07x): **missed**, 7% over",
        "0.99x: met",
      ],
    ]);
    assert(!section.includes(`| ${RETIRED_LABEL} |`), "a retired target has no row");
    assert(section.includes(`Retired: "${RETIRED_LABEL}"`), "the retired target is named under the table");
    assert(
      section.includes(
        "- lavapipe, `bench/percall_bench.ts`: commit abc1234, 2026-11-27, Test CPU (2 cores)",
      ),
    );
    assert(
      section.includes("- H100, `bench/create_bench.ts`: commit f195317"),
      "the earlier source line stays",
    );
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("README figures: one sentence per machine, from the table's cells", () => {
  assertEquals(
    readmeFigures(EARLIER),
    "On lavapipe, against libvulkan: creating and destroying an instance and device 1.07x (1.04x to 1.07x). " +
      "On H100, against libvulkan: creating and destroying an instance and device 0.99x.",
  );
});
