/**
 * Layer manifest builders for the layer tests (each test still builds its own
 * temp tree with `TempTree`).
 *
 * @module
 */

/** Fields of one layer in a test manifest; unset fields get valid defaults. */
export type LayerFields = Record<string, unknown> & { name: string };

/** A layer object with every required field (explicit unless `disable_environment` is given). */
export function layerObject(fields: LayerFields): Record<string, unknown> {
  const out: Record<string, unknown> = {
    type: "GLOBAL",
    api_version: "1.3.211",
    implementation_version: "1",
    description: `${fields.name} description`,
    ...fields,
  };
  if (out["component_layers"] === undefined && out["library_path"] === undefined) {
    out["library_path"] = `lib${fields.name}.so`;
  }
  for (const [key, value] of Object.entries(out)) if (value === undefined) delete out[key];
  return out;
}

/** A manifest text holding one layer (`layer` object, file version 1.1.2 unless given). */
export function layerManifest(fields: LayerFields, version = "1.1.2"): string {
  return JSON.stringify({ file_format_version: version, layer: layerObject(fields) }, null, 2);
}

/** A manifest text holding several layers (`layers` array). */
export function layersManifest(list: LayerFields[], version = "1.1.2"): string {
  return JSON.stringify({ file_format_version: version, layers: list.map(layerObject) }, null, 2);
}

/** An implicit layer's fields: on by default, off when `DISABLE_<name>` is set. */
export function implicitFields(name: string, extra: Record<string, unknown> = {}): LayerFields {
  return { name, disable_environment: { [`DISABLE_${name}`]: "1" }, ...extra };
}

/** Default implicit and explicit folders under a fake root. */
export const IMPLICIT_DIR = "usr/share/vulkan/implicit_layer.d";
export const EXPLICIT_DIR = "usr/share/vulkan/explicit_layer.d";
