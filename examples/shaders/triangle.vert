#version 450
// One triangle with a colour per corner, no vertex buffer: examples/triangle.ts draws 3 vertices.
// Clip space y points down in Vulkan: the first corner is the top middle of the image.
const vec2 positions[3] = vec2[](vec2(0.0, -0.75), vec2(0.75, 0.75), vec2(-0.75, 0.75));
const vec3 colours[3] = vec3[](vec3(1.0, 0.0, 0.0), vec3(0.0, 1.0, 0.0), vec3(0.0, 0.0, 1.0));

layout(location = 0) out vec3 colour;

void main() {
  gl_Position = vec4(positions[gl_VertexIndex], 0.0, 1.0);
  colour = colours[gl_VertexIndex];
}
