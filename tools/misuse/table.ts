/**
 * Prints the misuse table: each case of tools/misuse/cases.ts run in its own process on lavapipe, with and
 * without `VKDENO_CHECKED=1`: its exit status and the first line of its stderr.
 * `deno run --allow-all tools/misuse/table.ts [--driver=<icd.json>]`.
 *
 * @module
 */
import { CASES } from "./cases.ts";
import { LAVAPIPE } from "../../tests/support/lavapipe.ts";

const driverArg = Deno.args.find((a) => a.startsWith("--driver="));
const driver = driverArg?.slice("--driver=".length) ?? LAVAPIPE;
const runner = new URL("./run.ts", import.meta.url).pathname;

/** Exit status (128 + signal for a signal) and first stderr line of one case. */
export async function runCase(
  name: string,
  checked: boolean,
  icd: string = driver,
): Promise<{ code: number; first: string; stderr: string }> {
  // Only the driver, and what Deno itself needs: no layer or loader variable of the caller leaks in.
  const env: Record<string, string> = { VK_DRIVER_FILES: icd };
  for (const name of ["HOME", "DENO_DIR", "PATH"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  if (checked) env.VKDENO_CHECKED = "1";
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", runner, name],
    env,
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  const code = out.signal ? 128 + signalNumber(out.signal) : out.code;
  return { code, first: stderr.split("\n").find((l) => l.trim() !== "") ?? "", stderr };
}

function signalNumber(signal: Deno.Signal): number {
  return ({ SIGSEGV: 11, SIGABRT: 6, SIGBUS: 7, SIGILL: 4, SIGFPE: 8, SIGKILL: 9 } as Record<string, number>)[
    signal
  ] ?? 0;
}

if (import.meta.main) {
  const cut = (s: string) => (s.length > 90 ? s.slice(0, 87) + "..." : s).replaceAll("|", "\\|");
  console.log("| # | case | plain: exit, first stderr line | VKDENO_CHECKED=1: exit, first stderr line |");
  console.log("| - | ---- | ------------------------------ | ------------------------------------------ |");
  let i = 0;
  for (const c of CASES) {
    const [plain, checked] = await Promise.all([runCase(c.name, false), runCase(c.name, true)]);
    console.log(
      `| ${++i} | ${c.name} | ${plain.code} ${cut(plain.first)} | ${checked.code} ${cut(checked.first)} |`,
    );
  }
}
