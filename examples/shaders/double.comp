#version 450
// Doubles every uint of the storage buffer; examples/compute.ts dispatches one invocation per value.
layout(local_size_x = 256) in;

layout(std430, set = 0, binding = 0) buffer Values {
  uint values[];
};

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < values.length()) {
    values[i] = values[i] * 2u;
  }
}
