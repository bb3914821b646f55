// Reads a BVH file with three.js's BVHLoader and prints, as JSON, every bone's world
// position (file units) in every frame: {"names": [...], "frames": [[[x, y, z], ...], ...]}.
// Usage: node read_bvh.js FILE.bvh
import { readFileSync } from "node:fs";
import { AnimationMixer, Vector3 } from "three";
import { BVHLoader } from "three/addons/loaders/BVHLoader.js";

const text = readFileSync(process.argv[2], "utf8");
const { skeleton, clip } = new BVHLoader().parse(text);
const root = skeleton.bones[0];
const mixer = new AnimationMixer(root);
mixer.clipAction(clip).play();
const count = clip.tracks[0].times.length;
const step = count > 1 ? clip.tracks[0].times[1] - clip.tracks[0].times[0] : 0;
const frames = [];
const p = new Vector3();
for (let f = 0; f < count; f++) {
  mixer.setTime(f * step);
  root.updateMatrixWorld(true);
  frames.push(skeleton.bones.map((bone) => bone.getWorldPosition(p).toArray()));
}
process.stdout.write(JSON.stringify({ names: skeleton.bones.map((b) => b.name), frames }));
