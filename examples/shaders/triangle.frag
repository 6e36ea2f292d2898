#version 450
// The corner colours interpolated across the triangle, opaque.
layout(location = 0) in vec3 colour;
layout(location = 0) out vec4 outColour;

void main() {
  outColour = vec4(colour, 1.0);
}
