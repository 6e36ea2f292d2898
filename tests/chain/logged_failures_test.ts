/**
 * Failures a user must see are logged at error, as by the Khronos loader (docs/behaviour.md G11): a driver's
 * failing `vkCreateDevice` (Khronos: `terminator_CreateDevice: Failed in ICD ... vkCreateDevice call`), and a
 * requested layer whose library cannot be loaded, whether the application or `VK_INSTANCE_LAYERS` asked for
 * it (Khronos: `... cannot open shared object file`). Both sides run the same mock setup.
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { MockEnvironment } from "../support/mock.ts";
import { khronosProbe, only, vkdenoProbe } from "../support/conform.ts";

const isError = (l: string) => l.startsWith("ERROR");

Deno.test("logged failures: a driver's failing vkCreateDevice is logged at error by both loaders", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({
    name: "refuses",
    variant: "export",
    createDeviceResult: -3,
    physicalDevices: [{ name: "R0" }],
  });
  const ours = vkdenoProbe(env);
  const theirs = await khronosProbe(env);
  assertEquals(only(ours.lines, "create_device"), ["create_device R0 result=-3"]);
  assertEquals(only(theirs.lines, "create_device"), only(ours.lines, "create_device"));
  const line = ours.log.find((l) => isError(l) && /refuses\.json.*vkCreateDevice failed with "-3"/.test(l));
  assert(line, ours.log.filter(isError).join("\n"));
  assert(line.includes("libmock_icd_refuses.so"), line);
  assert(
    theirs.log.some((l) => isError(l) && /vkCreateDevice/.test(l)),
    theirs.log.filter(isError).join("\n"),
  );
});

Deno.test("logged failures: a requested layer whose library cannot be loaded is logged at error by both loaders", async () => {
  await using env = await MockEnvironment.create();
  await env.addDriver({ name: "drv", variant: "export", physicalDevices: [{ name: "D0" }] });
  await env.addLayer({ name: "VK_LAYER_MOCK_gone" }, {
    manifest: { libraryPath: "/nonexistent/libgone.so" },
  });
  // VK_INSTANCE_LAYERS: the instance is made without it
  const vars = { VK_INSTANCE_LAYERS: "VK_LAYER_MOCK_gone" };
  const ours = vkdenoProbe(env, { vars });
  const theirs = await khronosProbe(env, { vars });
  assertEquals(only(ours.lines, "create_instance"), ["create_instance result=0"]);
  assertEquals(only(theirs.lines, "create_instance"), only(ours.lines, "create_instance"));
  const named = (l: string) => isError(l) && l.includes("VK_LAYER_MOCK_gone") && l.includes("libgone.so");
  assert(ours.log.some(named), ours.log.filter(isError).join("\n"));
  assert(
    theirs.log.some((l) => isError(l) && l.includes("libgone.so")),
    theirs.log.filter(isError).join("\n"),
  );
  // asked for by the application: VK_ERROR_LAYER_NOT_PRESENT, logged at error
  const app = vkdenoProbe(env, { appLayers: ["VK_LAYER_MOCK_gone"] });
  const appTheirs = await khronosProbe(env, { appLayers: ["VK_LAYER_MOCK_gone"] });
  assertEquals(only(app.lines, "create_instance"), ["create_instance result=-6"]);
  assertEquals(only(appTheirs.lines, "create_instance"), only(app.lines, "create_instance"));
  assert(app.log.some(named), app.log.filter(isError).join("\n"));
});
