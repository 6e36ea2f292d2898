/**
 * `deno task inspect`: prints what driver discovery finds for this process
 * (its real environment and file system), as tables or, with `--json`, as JSON.
 *
 * Usage: `deno task inspect [--json] [--package FOLDER]...`
 *
 * @module
 */

import { describeDevicePolicy, DEVICE_POLICY_VARIABLES, readDevicePolicy } from "../chain/device_order.ts";
import { snapshotProcessEnvironment } from "../discovery/environment.ts";
import { buildInspectReport, formatInspectReport } from "../discovery/inspect.ts";

function main(args: readonly string[]): number {
  let json = false;
  const packages: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--json") json = true;
    else if (arg === "--package" && args[i + 1] !== undefined) packages.push(args[++i] ?? "");
    else if (arg === "--help" || arg === "-h") {
      console.log("Usage: deno task inspect [--json] [--package FOLDER]...");
      return 0;
    } else {
      console.error(`Unknown argument "${arg}" (try --help)`);
      return 2;
    }
  }
  const env = snapshotProcessEnvironment();
  const report = buildInspectReport(env, { packages, variables: DEVICE_POLICY_VARIABLES });
  // The physical-device rules in force (the order itself needs the drivers loaded: deno task info).
  const devicePolicy = describeDevicePolicy(readDevicePolicy(env));
  if (json) console.log(JSON.stringify({ ...report, devicePolicy }, null, 2));
  else console.log(`${formatInspectReport(report)}\n\n${devicePolicy.lines.join("\n")}`);
  return 0;
}

if (import.meta.main) Deno.exit(main(Deno.args));
