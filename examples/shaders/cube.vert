#version 450
// The cube of examples/cube.ts: 36 vertices (6 faces of 2 triangles), no vertex buffer, a colour per face,
// one model-view-projection matrix per frame from the uniform buffer.
layout(binding = 0) uniform Frame {
  mat4 mvp;
} frame;

const vec3 corners[36] = vec3[](
  vec3(1, -1, 1), vec3(1, -1, -1), vec3(1, 1, -1), vec3(1, -1, 1), vec3(1, 1, -1), vec3(1, 1, 1),
  vec3(-1, -1, -1), vec3(-1, -1, 1), vec3(-1, 1, 1), vec3(-1, -1, -1), vec3(-1, 1, 1), vec3(-1, 1, -1),
  vec3(-1, 1, 1), vec3(1, 1, 1), vec3(1, 1, -1), vec3(-1, 1, 1), vec3(1, 1, -1), vec3(-1, 1, -1),
  vec3(-1, -1, -1), vec3(1, -1, -1), vec3(1, -1, 1), vec3(-1, -1, -1), vec3(1, -1, 1), vec3(-1, -1, 1),
  vec3(-1, -1, 1), vec3(1, -1, 1), vec3(1, 1, 1), vec3(-1, -1, 1), vec3(1, 1, 1), vec3(-1, 1, 1),
  vec3(1, -1, -1), vec3(-1, -1, -1), vec3(-1, 1, -1), vec3(1, -1, -1), vec3(-1, 1, -1), vec3(1, 1, -1)
);
const vec3 faceColours[6] = vec3[](
  vec3(0.90, 0.20, 0.20), vec3(0.20, 0.75, 0.30), vec3(0.20, 0.40, 0.90),
  vec3(0.95, 0.80, 0.20), vec3(0.80, 0.30, 0.85), vec3(0.20, 0.80, 0.85)
);

layout(location = 0) out vec3 colour;
layout(location = 1) out vec2 uv;

void main() {
  gl_Position = frame.mvp * vec4(corners[gl_VertexIndex], 1.0);
  colour = faceColours[gl_VertexIndex / 6];
  // Each face's own square coordinates, for a darker border in the fragment shader.
  const vec2 quad[6] = vec2[](vec2(0, 0), vec2(1, 0), vec2(1, 1), vec2(0, 0), vec2(1, 1), vec2(0, 1));
  uv = quad[gl_VertexIndex % 6];
}
