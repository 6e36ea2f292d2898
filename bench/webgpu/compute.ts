/**
 * The compute demo's job (examples/compute.ts) written for Deno's built-in WebGPU, the reference of the check
 * and compute benches: doubles 1,048,576 uints with a compute shader on the default adapter, reads them back,
 * checks them, prints the adapter and the result. Run with `--unstable-webgpu` where Deno needs it; exit 1
 * when a value is wrong, 2 when there is no adapter.
 *
 * @module
 */
const COUNT = 1 << 20;
const WORKGROUP_SIZE = 256;
const SHADER = `
@group(0) @binding(0) var<storage, read_write> values: array<u32>;
@compute @workgroup_size(${WORKGROUP_SIZE})
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  values[id.x] = values[id.x] * 2u;
}`;

const adapter = await navigator.gpu.requestAdapter();
if (adapter === null) {
  console.error("No WebGPU adapter");
  Deno.exit(2);
}
const device = await adapter.requestDevice();
const size = COUNT * 4;
// The storage buffer, filled at creation through its mapping; a second buffer to read the result back.
const storage = device.createBuffer({
  size,
  usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC,
  mappedAtCreation: true,
});
const input = new Uint32Array(storage.getMappedRange());
for (let i = 0; i < COUNT; i++) input[i] = i;
storage.unmap();
const readback = device.createBuffer({ size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
const pipeline = device.createComputePipeline({
  layout: "auto",
  compute: { module: device.createShaderModule({ code: SHADER }), entryPoint: "main" },
});
const bindGroup = device.createBindGroup({
  layout: pipeline.getBindGroupLayout(0),
  entries: [{ binding: 0, resource: { buffer: storage } }],
});
const encoder = device.createCommandEncoder();
const pass = encoder.beginComputePass();
pass.setPipeline(pipeline);
pass.setBindGroup(0, bindGroup);
pass.dispatchWorkgroups(COUNT / WORKGROUP_SIZE);
pass.end();
encoder.copyBufferToBuffer(storage, 0, readback, 0, size);
device.queue.submit([encoder.finish()]);
await readback.mapAsync(GPUMapMode.READ);
const values = new Uint32Array(readback.getMappedRange());
let wrong = 0;
for (let i = 0; i < COUNT; i++) if (values[i] !== 2 * i) wrong++;
readback.unmap();
device.destroy();
console.log(`Adapter: ${adapter.info.vendor} ${adapter.info.device || adapter.info.description}`.trim());
console.log(`Result:  ${wrong === 0 ? "all" : `${wrong} of`} ${COUNT} values ${wrong ? "wrong" : "correct"}`);
if (wrong !== 0) Deno.exitCode = 1;
