/**
 * Misuse never kills the process (docs/behaviour.md V07-V11, V15):
 * each program of the misuse catalogue (tools/misuse/cases.ts) runs in its own process on lavapipe, plain
 * and with `VKDENO_CHECKED=1`, and ends in a caught error naming the command, the parameter and what is
 * wrong (exit status 0), or the one warning it owes. Cases only checked mode catches (a native one-call
 * stub takes the call otherwise) are asserted with it on.
 */

import { deepStrictEqual as assertEquals, match as assertMatch, ok as assert } from "node:assert/strict";
import { CASES } from "../tools/misuse/cases.ts";
import { runCase } from "../tools/misuse/table.ts";
import { hasLavapipe, LAVAPIPE } from "./support/lavapipe.ts";

type Outcome = Awaited<ReturnType<typeof runCase>>;

/** Runs every (case, mode) pair, a few processes at a time. */
async function runAll(): Promise<Map<string, Outcome>> {
  const jobs = CASES.flatMap((c) => [false, true].map((checked) => ({ c, checked })))
    .filter(({ c, checked }) => checked || !c.checkedOnly);
  const out = new Map<string, Outcome>();
  let next = 0;
  await Promise.all(Array.from({ length: 4 }, async () => {
    while (next < jobs.length) {
      const { c, checked } = jobs[next++]!;
      out.set(`${c.name}/${checked}`, await runCase(c.name, checked, LAVAPIPE));
    }
  }));
  return out;
}

Deno.test({
  name: "misuse on lavapipe ends in a thrown error naming command, parameter and fault, never a dead process",
  ignore: !hasLavapipe,
  async fn(t) {
    const outcomes = await runAll();
    for (const c of CASES) {
      for (const checked of c.checkedOnly ? [true] : [false, true]) {
        await t.step(`${c.name}${checked ? " (VKDENO_CHECKED=1)" : ""}: ${c.what}`, () => {
          const o = outcomes.get(`${c.name}/${checked}`)!;
          assertEquals(o.code, 0, o.stderr);
          assertMatch(o.stderr, c.expect);
          assert(!o.stderr.includes("stale"), o.stderr);
          if (c.name === "dispose-with-live-objects") {
            // One warning, however often dispose runs; and the device still works for who holds it.
            assertEquals(o.stderr.match(/disposed with live objects/g)?.length, 1, o.stderr);
            assert(!o.stderr.includes("caught"), o.stderr);
          } else {
            assertMatch(o.first, /^caught (TypeError|RangeError|SuppressedError): /);
          }
        });
      }
    }
  },
});
