"""GLSL of the video renderer (OpenGL 3.3 core): toon-shaded instances, planar shadows, and a
ground plane with a grid, like the live viewer's."""

QUATERNION = """
vec3 qrot(vec4 q, vec3 v) {
    vec3 t = 2.0 * cross(q.yzw, v);
    return v + q.x * t + cross(q.yzw, t);
}
vec3 to_ground(vec3 p, vec3 light) {
    // Planar shadow: slide p along the light direction onto y = 0 (never upward).
    return vec3(p.x - light.x * p.y / light.y, 0.0, p.z - light.z * p.y / light.y);
}
"""

INSTANCE_VERTEX = """
#version 330
uniform mat4 view_proj;
uniform vec3 light;
uniform bool shadow;
in vec3 in_pos;
in vec3 in_normal;
in vec3 i_pos;
in vec4 i_quat;
in vec3 i_scale;
in vec3 i_color;
out vec3 v_normal;
out vec3 v_color;
""" + QUATERNION + """
void main() {
    vec3 p = qrot(i_quat, in_pos * i_scale) + i_pos;
    if (shadow) p = to_ground(max(p, vec3(-1e9, 0.0, -1e9)), light);
    v_normal = normalize(qrot(i_quat, in_normal / max(i_scale, vec3(1e-6))));
    v_color = i_color;
    gl_Position = view_proj * vec4(p, 1.0);
}
"""

MESH_VERTEX = """
#version 330
uniform mat4 view_proj;
uniform vec3 light;
uniform bool shadow;
in vec3 in_pos;
in vec3 in_normal;
in vec3 in_color;
out vec3 v_normal;
out vec3 v_color;
""" + QUATERNION + """
void main() {
    vec3 p = shadow ? to_ground(max(in_pos, vec3(-1e9, 0.0, -1e9)), light) : in_pos;
    v_normal = in_normal;
    v_color = in_color;
    gl_Position = view_proj * vec4(p, 1.0);
}
"""

TOON_FRAGMENT = """
#version 330
uniform vec3 light;
uniform bool shadow;
in vec3 v_normal;
in vec3 v_color;
out vec4 f_color;
void main() {
    if (shadow) { f_color = vec4(0.0, 0.0, 0.0, 0.28); return; }
    vec3 n = normalize(gl_FrontFacing ? v_normal : -v_normal);
    float d = dot(n, light);
    // Three tones, like the live viewer's toon3 material.
    float tone = d > 0.55 ? 1.0 : (d > 0.05 ? 0.8 : 0.62);
    f_color = vec4(v_color * tone, 1.0);
}
"""

GROUND_VERTEX = """
#version 330
uniform mat4 view_proj;
uniform vec2 centre;
in vec2 in_xz;
in vec3 in_color;
out vec2 v_xz;
out vec3 v_color;
void main() {
    v_xz = centre + in_xz;
    v_color = in_color;
    gl_Position = view_proj * vec4(v_xz.x, 0.0, v_xz.y, 1.0);
}
"""

GROUND_FRAGMENT = """
#version 330
uniform vec3 eye;
uniform float fade;
uniform vec3 sky_color;
in vec2 v_xz;
in vec3 v_color;
out vec4 f_color;
void main() {
    // The ground and its grid fade into the sky with distance from the eye.
    float dist = length(v_xz - eye.xz);
    f_color = vec4(mix(v_color, sky_color, smoothstep(0.3 * fade, fade, dist)), 1.0);
}
"""

SCREEN_VERTEX = """
#version 330
in vec2 in_xy;
void main() {
    gl_Position = vec4(in_xy, 0.0, 1.0);
}
"""

FXAA_FRAGMENT = """
#version 330
// Fast approximate anti-aliasing (Lottes' FXAA, the compact console variant): blends along
// the edge direction found from the luma of the four diagonal neighbours. Much cheaper than
// multisampling on a software rasteriser.
uniform sampler2D image;
uniform vec2 texel;
out vec4 f_color;
const vec3 LUMA = vec3(0.299, 0.587, 0.114);
void main() {
    vec2 uv = gl_FragCoord.xy * texel;
    ivec2 p = ivec2(gl_FragCoord.xy);
    ivec2 top = textureSize(image, 0) - 1;
    vec3 m = texelFetch(image, p, 0).rgb;
    float nw = dot(texelFetch(image, clamp(p + ivec2(-1, -1), ivec2(0), top), 0).rgb, LUMA);
    float ne = dot(texelFetch(image, clamp(p + ivec2(1, -1), ivec2(0), top), 0).rgb, LUMA);
    float sw = dot(texelFetch(image, clamp(p + ivec2(-1, 1), ivec2(0), top), 0).rgb, LUMA);
    float se = dot(texelFetch(image, clamp(p + ivec2(1, 1), ivec2(0), top), 0).rgb, LUMA);
    float lm = dot(m, LUMA);
    float lo = min(lm, min(min(nw, ne), min(sw, se)));
    float hi = max(lm, max(max(nw, ne), max(sw, se)));
    if (hi - lo < 0.04) { f_color = vec4(m, 1.0); return; }
    vec2 dir = vec2(-((nw + ne) - (sw + se)), (nw + sw) - (ne + se));
    float reduce = max((nw + ne + sw + se) * 0.03125, 1.0 / 128.0);
    dir = clamp(dir / (min(abs(dir.x), abs(dir.y)) + reduce), -8.0, 8.0) * texel;
    vec3 a = 0.5 * (texture(image, uv - dir / 6.0).rgb + texture(image, uv + dir / 6.0).rgb);
    vec3 b = 0.5 * a + 0.25 * (texture(image, uv - dir * 0.5).rgb
                               + texture(image, uv + dir * 0.5).rgb);
    float lb = dot(b, LUMA);
    f_color = vec4((lb < lo || lb > hi) ? a : b, 1.0);
}
"""
