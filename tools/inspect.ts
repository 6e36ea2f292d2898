/**
 * `deno task inspect`: prints what discovery finds for this process, as tables or JSON; `--watch` prints it
 * again after every change.
 *
 * @module
 */

import { describeDevicePolicy } from "../chain/order/report.ts";
import { DEVICE_POLICY_VARIABLES, readDevicePolicy } from "../discovery/device_selection.ts";
import { snapshotProcessEnvironment } from "../discovery/environment.ts";
import { buildInspectReport, formatInspectReport } from "../discovery/inspect.ts";
import type { EnvironmentSnapshot } from "../discovery/environment.ts";
import { type DiscoveryChange, DiscoveryWatcher } from "../discovery/watch.ts";

function main(args: readonly string[]): number | Promise<number> {
  let json = false;
  let watching = false;
  const packages: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--json") json = true;
    else if (arg === "--watch") watching = true;
    else if (arg === "--package" && args[i + 1] !== undefined) packages.push(args[++i] ?? "");
    else if (arg === "--help" || arg === "-h") {
      console.log("Usage: deno task inspect [--json] [--watch] [--package FOLDER]...");
      return 0;
    } else {
      console.error(`Unknown argument "${arg}" (try --help)`);
      return 2;
    }
  }
  const env = snapshotProcessEnvironment();
  const print = (changes?: readonly DiscoveryChange[]) => {
    const report = buildInspectReport(env, { packages, variables: DEVICE_POLICY_VARIABLES });
    // The physical-device rules in force (the order itself needs the drivers loaded: deno task info).
    const devicePolicy = describeDevicePolicy(readDevicePolicy(env));
    if (json) {
      console.log(JSON.stringify({ ...(changes ? { changes } : {}), ...report, devicePolicy }, null, 2));
    } else {
      const head = changes === undefined ? "" : `${formatChanges(changes)}\n\n`;
      console.log(`${head}${formatInspectReport(report)}\n\n${devicePolicy.lines.join("\n")}`);
    }
  };
  print();
  return watching ? watchAndPrint(env, print) : 0;
}

/** One line per change, with the time. */
export function formatChanges(changes: readonly DiscoveryChange[]): string {
  const at = new Date().toISOString();
  return [`Changed at ${at}:`, ...changes.map((c) => `  ${c.change} ${c.kind}: ${c.path}`)].join("\n");
}

async function watchAndPrint(
  env: EnvironmentSnapshot,
  print: (changes: readonly DiscoveryChange[]) => void,
): Promise<number> {
  // The watcher never holds the process by itself: this interval does, until Ctrl+C.
  const keepAlive = setInterval(() => {}, 1 << 30);
  try {
    const watcher = new DiscoveryWatcher(env);
    console.log(`\nWatching ${watcher.folders.length} folder(s) for changes (Ctrl+C to stop)`);
    for await (const changes of watcher) print(changes);
  } finally {
    clearInterval(keepAlive);
  }
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
