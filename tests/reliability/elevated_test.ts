/**
 * Elevated privileges, for real: discovery run in a process the kernel started with `AT_SECURE` ignores
 * the user-controlled variables and paths (docs/behaviour.md D09), and the same run unprivileged honours
 * them.
 *
 * The test (running as root) builds two tiny C programs: `reliab_drop` (setuid() down to `nobody`, then
 * exec) and `reliab_launcher` (exec its arguments). A copy of the launcher is made setuid-root, so `nobody`
 * running it gets euid 0 and `AT_SECURE`, and the deno it execs keeps both. A plain copy is the
 * unprivileged control. `nobody` may not be able to enter the checkout (a clone under `mktemp -d` is mode
 * 0700) nor the folder deno lives in, so the tree gets its own world-readable copies: the deno binary, the
 * repository modules the probe imports (found with `deno info --json`), deno.json, and an empty DENO_DIR
 * (discovery imports no npm package).
 *
 * Two more ways to get `AT_SECURE` (setuid to another user, a file capability on deno) leave the process
 * unable to read its own `/proc/self/auxv` (it is not dumpable), so `isProcessElevated()` answers false
 * there: those runs are skipped unless `RELIAB_KNOWN_BUGS=1` (see docs/reliability.md).
 */

import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { goodDriverManifest, goodLayerManifest } from "../support/reliability_manifests.ts";
import { cc } from "../support/c_build.ts";
import { LAVAPIPE } from "../support/lavapipe.ts";

const REPO = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
const DENO = Deno.execPath();
const NOBODY = 65534;
const DAEMON = 1;

interface ProbeResult {
  elevated: boolean;
  atSecure: number;
  uid: number;
  euid: number;
  drivers: { path: string; source: string }[];
  skipped: { path: string; reason: string }[];
  layers: string[];
  active: string[] | string;
  warnings: string[];
}

/** The probe, importing the repository's modules from `root` (a world-readable copy of the ones it needs). */
const probeSource = (root: string) => `
import { snapshotProcessEnvironment } from "${root}/discovery/environment.ts";
import { discoverDrivers } from "${root}/discovery/drivers.ts";
import { discoverLayers } from "${root}/discovery/layers.ts";
import { activateLayers } from "${root}/discovery/layer_activation.ts";

const libc = Deno.dlopen("libc.so.6", {
  getauxval: { parameters: ["u64"], result: "u64" },
  geteuid: { parameters: [], result: "u32" },
});
const env = snapshotProcessEnvironment();
const d = discoverDrivers(env);
const l = discoverLayers(env);
const a = activateLayers(env, l);
console.log(JSON.stringify({
  elevated: env.elevated,
  atSecure: Number(libc.symbols.getauxval(23n)),
  uid: Deno.uid(),
  euid: libc.symbols.geteuid(),
  drivers: d.drivers.map((x) => ({ path: x.manifestPath, source: x.origin.source })),
  skipped: d.candidates.filter((c) => c.status === "skipped").map((c) => ({ path: c.manifestPath, reason: c.reason })),
  layers: l.layers.map((x) => x.manifestPath),
  active: a.ok ? a.layers.map((x) => x.layer.name) : a.message,
  warnings: d.messages.filter((m) => m.level === "warn").map((m) => m.text),
}));
`;

function build(source: string, output: string): Promise<void> {
  return cc(["-O1", "-Wall", "-o", output, source]);
}

/**
 * The temp folder to build in: TMPDIR when every folder above it lets others through, else /tmp (a TMPDIR
 * inside a private folder would hide the whole tree from `nobody`).
 */
function worldSearchableTempDir(): string {
  const tmp = (Deno.env.get("TMPDIR") ?? "/tmp").replace(/\/+$/, "") || "/";
  let path = "";
  for (const part of tmp.split("/").filter((p) => p)) {
    path += `/${part}`;
    if (((Deno.statSync(path).mode ?? 0) & 0o001) === 0) return "/tmp";
  }
  return tmp;
}

/** A temp tree `nobody` can read, with the helpers, a DENO_DIR and user-controlled manifests. */
class ElevatedTree implements AsyncDisposable {
  readonly dir: string;
  constructor() {
    this.dir = Deno.makeTempDirSync({ prefix: "vkdeno_elev_", dir: worldSearchableTempDir() });
    Deno.chmodSync(this.dir, 0o755);
  }

  async setup(): Promise<void> {
    const d = this.dir;
    await build(`${REPO}/tests/support/c/reliab_drop.c`, `${d}/drop`);
    await build(`${REPO}/tests/support/c/reliab_launcher.c`, `${d}/launcher`);
    Deno.copyFileSync(`${d}/launcher`, `${d}/launcher_suid_root`);
    Deno.chownSync(`${d}/launcher_suid_root`, 0, 0);
    Deno.chmodSync(`${d}/launcher_suid_root`, 0o4755);
    Deno.copyFileSync(`${d}/launcher`, `${d}/launcher_suid_daemon`);
    Deno.chownSync(`${d}/launcher_suid_daemon`, DAEMON, DAEMON);
    Deno.chmodSync(`${d}/launcher_suid_daemon`, 0o6755);
    await this.copyRunnables();
    // Deno's own cache for this run, writable by whoever runs deno.
    Deno.mkdirSync(`${d}/deno_dir`, { recursive: true });
    await new Deno.Command("chmod", { args: ["-R", "a+rwX", `${d}/deno_dir`] }).output();
    // User-controlled places, each holding a manifest named after the variable that points there.
    const manifest = (name: string) => goodDriverManifest(`/usr/lib/x86_64-linux-gnu/libvulkan_${name}.so`);
    const place = (rel: string, name: string) => {
      Deno.mkdirSync(`${d}/user/${rel}`, { recursive: true });
      Deno.writeTextFileSync(`${d}/user/${rel}/${name}.json`, manifest(name));
    };
    place("driver_files", "user_driver_files");
    place("add_driver_files", "user_add_driver_files");
    place("xdg_config_home/vulkan/icd.d", "user_xdg_config_home");
    place("xdg_config_dirs/vulkan/icd.d", "user_xdg_config_dirs");
    place("xdg_data_home/vulkan/icd.d", "user_xdg_data_home");
    place("xdg_data_dirs/vulkan/icd.d", "user_xdg_data_dirs");
    place("home/.local/share/vulkan/icd.d", "user_home_data");
    Deno.mkdirSync(`${d}/user/layers`, { recursive: true });
    Deno.writeTextFileSync(
      `${d}/user/layers/user_layer.json`,
      goodLayerManifest("VK_LAYER_RELIAB_user", "/nonexistent/libuser_layer.so"),
    );
    // Unreadable for nobody: root reads any file, so this fault needs the unprivileged run.
    Deno.writeTextFileSync(`${d}/user/driver_files/no_permission.json`, manifest("no_permission"));
    Deno.chmodSync(`${d}/user/driver_files/no_permission.json`, 0o000);
    await new Deno.Command("chmod", { args: ["-R", "a+rX", `${d}/user`] }).output();
    Deno.chmodSync(`${d}/user/driver_files/no_permission.json`, 0o000);
  }

  /**
   * World-readable copies of what `nobody` runs: deno itself, and the repository modules the probe imports
   * (with deno.json), so the test passes wherever the checkout and deno live.
   */
  async copyRunnables(): Promise<void> {
    const d = this.dir;
    Deno.copyFileSync(DENO, `${d}/deno`);
    Deno.chmodSync(`${d}/deno`, 0o755);
    Deno.writeTextFileSync(`${d}/probe_in_repo.ts`, probeSource(REPO));
    const info = await new Deno.Command(DENO, {
      args: ["info", "--json", "--no-lock", "--config", `${REPO}/deno.json`, `${d}/probe_in_repo.ts`],
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!info.success) throw new Error(`deno info failed: ${new TextDecoder().decode(info.stderr)}`);
    const graph = JSON.parse(new TextDecoder().decode(info.stdout)) as { modules: { local?: string }[] };
    const local = graph.modules.map((m) => m.local).filter((p): p is string => !!p?.startsWith(`${REPO}/`));
    assert(local.length > 0, "deno info listed no repository module for the probe");
    for (const file of [...local, `${REPO}/deno.json`]) {
      const copy = `${d}/repo/${file.slice(REPO.length + 1)}`;
      Deno.mkdirSync(copy.slice(0, copy.lastIndexOf("/")), { recursive: true });
      Deno.copyFileSync(file, copy);
    }
    Deno.writeTextFileSync(`${d}/probe.ts`, probeSource(`${d}/repo`));
    await new Deno.Command("chmod", { args: ["-R", "a+rX", `${d}/repo`, `${d}/probe.ts`] }).output();
  }

  /** Runs the probe as `nobody` through `launcher`, with exactly `vars` in the environment. */
  async probe(
    launcher: string,
    vars: Record<string, string>,
    deno = `${this.dir}/deno`,
  ): Promise<ProbeResult> {
    // A binary copied into the tree can be busy for a moment (ETXTBSY, "Text file busy"): a child another
    // test of this process forked meanwhile holds the copy's write descriptor until it execs. Try again.
    for (let attempt = 1;; attempt++) {
      try {
        return await this.#probeOnce(launcher, vars, deno);
      } catch (error) {
        if (attempt === 5 || !String(error).includes("Text file busy")) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
      }
    }
  }

  async #probeOnce(launcher: string, vars: Record<string, string>, deno: string): Promise<ProbeResult> {
    const d = this.dir;
    const out = await new Deno.Command(`${d}/drop`, {
      args: [
        String(NOBODY),
        String(NOBODY),
        `${d}/${launcher}`,
        deno,
        "run",
        "--no-lock",
        "--cached-only",
        "--no-check",
        "--config",
        `${d}/repo/deno.json`,
        "--allow-all",
        `${d}/probe.ts`,
      ],
      env: { ...vars, DENO_DIR: `${d}/deno_dir`, PATH: "/usr/bin:/bin", NO_COLOR: "1" },
      clearEnv: true,
      cwd: d,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    if (!out.success) {
      throw new Error(`Probe through "${launcher}" failed: ${new TextDecoder().decode(out.stderr)}${text}`);
    }
    return JSON.parse(text.trim().split("\n").at(-1)!) as ProbeResult;
  }

  /** Variables pointing at every user-controlled place, in two sets (an override hides the defaults). */
  overrideVars(): Record<string, string> {
    return {
      VK_DRIVER_FILES: `${this.dir}/user/driver_files`,
      VK_LAYER_PATH: `${this.dir}/user/layers`,
      VK_INSTANCE_LAYERS: "VK_LAYER_RELIAB_user",
      VK_LOADER_LAYERS_DISABLE: "~implicit~",
      HOME: `${this.dir}/user/home`,
    };
  }

  searchVars(): Record<string, string> {
    const u = `${this.dir}/user`;
    return {
      VK_ADD_DRIVER_FILES: `${u}/add_driver_files`,
      XDG_CONFIG_HOME: `${u}/xdg_config_home`,
      XDG_CONFIG_DIRS: `${u}/xdg_config_dirs`,
      XDG_DATA_HOME: `${u}/xdg_data_home`,
      XDG_DATA_DIRS: `${u}/xdg_data_dirs`,
      HOME: `${u}/home`,
      VK_LOADER_DRIVERS_DISABLE: "*lvp*",
    };
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await Deno.remove(this.dir, { recursive: true });
  }
}

const canRun = Deno.uid() === 0 && Deno.build.os === "linux";
const reason = canRun ? "" : " (skipped: needs root to make setuid copies and switch to nobody)";

function fromUser(r: ProbeResult, tree: ElevatedTree): string[] {
  return r.drivers.map((d) => d.path).filter((p) => p.startsWith(`${tree.dir}/user/`));
}

Deno.test({
  name:
    `elevated: a setuid-root launcher run by nobody gives AT_SECURE; VK_DRIVER_FILES, VK_LAYER_PATH and HOME are ignored${reason}`,
  ignore: !canRun,
  async fn() {
    await using tree = new ElevatedTree();
    await tree.setup();
    const r = await tree.probe("launcher_suid_root", tree.overrideVars());
    assertEquals([r.atSecure, r.uid, r.euid], [1, NOBODY, 0]);
    assertEquals(r.elevated, true);
    assertEquals(fromUser(r, tree), []);
    // the defaults took over: the system's lavapipe manifest, found through the XDG_DATA_DIRS default
    assert(
      r.drivers.some((d) => d.path === LAVAPIPE),
      JSON.stringify(r.drivers),
    );
    assert(
      r.warnings.some((w) => w.includes("'VK_DRIVER_FILES'") && w.includes("elevated")),
      r.warnings.join("\n"),
    );
    assert(!r.layers.some((p) => p.startsWith(tree.dir)), `user layer found: ${r.layers}`);
    // VK_INSTANCE_LAYERS is read with getenv (honoured when elevated): it names a layer that is not found
    assertEquals(typeof r.active === "string" || !r.active.includes("VK_LAYER_RELIAB_user"), true);
  },
});

Deno.test({
  name:
    `elevated: XDG_*, HOME and VK_ADD_DRIVER_FILES are ignored under AT_SECURE; driver filters too${reason}`,
  ignore: !canRun,
  async fn() {
    await using tree = new ElevatedTree();
    await tree.setup();
    const r = await tree.probe("launcher_suid_root", tree.searchVars());
    assertEquals([r.atSecure, r.elevated], [1, true]);
    assertEquals(fromUser(r, tree), []);
    // VK_LOADER_DRIVERS_DISABLE=*lvp* is a secure_getenv variable too: lavapipe stays
    assert(r.drivers.some((d) => d.path === LAVAPIPE));
  },
});

Deno.test({
  name:
    `unprivileged control: the same runs as nobody without AT_SECURE honour every variable; a mode-000 manifest is skipped with a reason${reason}`,
  ignore: !canRun,
  async fn() {
    await using tree = new ElevatedTree();
    await tree.setup();
    const a = await tree.probe("launcher", tree.overrideVars());
    assertEquals([a.atSecure, a.elevated, a.uid, a.euid], [0, false, NOBODY, NOBODY]);
    assertEquals(fromUser(a, tree).map((p) => p.slice(p.lastIndexOf("/") + 1)), ["user_driver_files.json"]);
    const denied = a.skipped.find((s) => s.path.endsWith("/no_permission.json"));
    assert(denied && /cannot be read|permission/i.test(denied.reason), JSON.stringify(a.skipped));
    assert(a.layers.some((p) => p === `${tree.dir}/user/layers/user_layer.json`));
    assert(Array.isArray(a.active) && a.active.includes("VK_LAYER_RELIAB_user"), String(a.active));
    const b = await tree.probe("launcher", tree.searchVars());
    assertEquals(
      fromUser(b, tree).map((p) => p.slice(p.lastIndexOf("/") + 1)).sort(),
      [
        "user_add_driver_files.json",
        "user_xdg_config_dirs.json",
        "user_xdg_config_home.json",
        "user_xdg_data_dirs.json",
        "user_xdg_data_home.json",
      ],
    );
    assert(!b.drivers.some((d) => d.path.includes("lvp")), "VK_LOADER_DRIVERS_DISABLE was not honoured");
  },
});

Deno.test({
  name:
    `elevated: setuid to another user (euid daemon) and a file capability on deno also read as elevated${reason}`,
  ignore: !canRun,
  async fn() {
    await using tree = new ElevatedTree();
    await tree.setup();
    const r = await tree.probe("launcher_suid_daemon", tree.overrideVars());
    assertEquals([r.atSecure, r.euid], [1, DAEMON]);
    assertEquals(r.elevated, true, "isProcessElevated() could not read /proc/self/auxv (not dumpable)");
    assertEquals(fromUser(r, tree), []);
    const setcap = await new Deno.Command("setcap", {
      args: ["-v", "-q", "cap_net_bind_service+ep", "/dev/null"],
    })
      .output().then(() => true, () => false);
    if (!setcap) return;
    Deno.copyFileSync(`${tree.dir}/deno`, `${tree.dir}/deno_cap`);
    Deno.chmodSync(`${tree.dir}/deno_cap`, 0o755);
    const set = await new Deno.Command("setcap", {
      args: ["cap_net_bind_service+ep", `${tree.dir}/deno_cap`],
    }).output();
    assert(set.success, "setcap failed");
    const c = await tree.probe("launcher", tree.overrideVars(), `${tree.dir}/deno_cap`);
    assertEquals(c.atSecure, 1);
    assertEquals(c.elevated, true);
  },
});
