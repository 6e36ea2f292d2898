#version 450
// A face's colour, darkened towards its edges so the cube's edges show.
layout(location = 0) in vec3 colour;
layout(location = 1) in vec2 uv;
layout(location = 0) out vec4 outColour;

void main() {
  vec2 edge = min(uv, 1.0 - uv);
  float border = smoothstep(0.0, 0.08, min(edge.x, edge.y));
  outColour = vec4(colour * (0.45 + 0.55 * border), 1.0);
}
