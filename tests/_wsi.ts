/** Private helpers of the WSI tests: compile and run a small C program, check a colour. */
import assert from "node:assert/strict";

/**
 * Compiles `source` with `cc` in a temp folder, runs it and returns its stdout parsed as
 * `name value` lines.
 */
export async function runC(source: string, libs: string[] = []): Promise<Record<string, number>> {
  const dir = await Deno.makeTempDir({ prefix: "vkdeno-wsi-c-" });
  try {
    await Deno.writeTextFile(`${dir}/probe.c`, source);
    const cc = await new Deno.Command("cc", { args: [`${dir}/probe.c`, "-o", `${dir}/probe`, ...libs] })
      .output();
    assert.equal(cc.code, 0, new TextDecoder().decode(cc.stderr));
    const run = await new Deno.Command(`${dir}/probe`).output();
    assert.equal(run.code, 0);
    const values: Record<string, number> = {};
    for (const line of new TextDecoder().decode(run.stdout).trim().split("\n")) {
      const [name, value] = line.split(" ");
      values[name!] = Number(value);
    }
    return values;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Counts the pixels of `rgba` within `tolerance` of `rgb` (0xRRGGBB). */
export function countColour(rgba: Uint8Array, rgb: number, tolerance = 2): number {
  const want = [(rgb >> 16) & 0xff, (rgb >> 8) & 0xff, rgb & 0xff];
  let n = 0;
  for (let i = 0; i < rgba.length; i += 4) {
    if (want.every((c, k) => Math.abs(rgba[i + k]! - c) <= tolerance)) n++;
  }
  return n;
}
