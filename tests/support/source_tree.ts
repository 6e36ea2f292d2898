/**
 * The repository's own source modules, for the tests that read the tree as text (import_graph_test,
 * one_c_builder_test).
 *
 * @module
 */

/** The repository root. */
export const REPO_ROOT: URL = new URL("../../", import.meta.url);

/** The TypeScript and JavaScript modules under `folder` (repository-relative), generated registry left out. */
export function modulesUnder(folder: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of Deno.readDirSync(new URL(dir, REPO_ROOT))) {
      const path = `${dir}${entry.name}`;
      if (entry.isDirectory && path !== "tools/registry") walk(`${path}/`);
      else if (entry.isFile && /\.(ts|js|mjs)$/.test(entry.name)) found.push(path);
    }
  };
  walk(folder);
  return found.sort();
}
