"""A small builder over pygltflib: one binary buffer, accessors with bounds, one animation.

glTF 2.0 wants every accessor aligned, POSITION and animation inputs bounded (``min``/``max``
as the stored float32 values), vertex data in ARRAY_BUFFER views and indices in
ELEMENT_ARRAY_BUFFER views; this builder does that bookkeeping so the scene code only says
what goes where.
"""

from __future__ import annotations

import base64

import numpy as np
import pygltflib as gl

from twig.export.meshes import Mesh

_TYPES = {1: "SCALAR", 3: "VEC3", 4: "VEC4", 16: "MAT4"}
_COMPONENTS = {np.dtype(np.float32): gl.FLOAT, np.dtype(np.uint8): gl.UNSIGNED_BYTE,
               np.dtype(np.uint16): gl.UNSIGNED_SHORT, np.dtype(np.uint32): gl.UNSIGNED_INT}


class Document:
    """A glTF document being built: ``gltf`` (pygltflib.GLTF2) and its binary ``blob``.

    ``times`` (F,) seconds are the keyframe times shared by every animation channel.
    """

    def __init__(self, times: np.ndarray) -> None:
        self.gltf = gl.GLTF2(asset=gl.Asset(generator="twig"), scene=0,
                             scenes=[gl.Scene(name="twig", nodes=[])])
        self.blob = bytearray()
        self._materials: dict[tuple, int] = {}
        self._animation = gl.Animation(name="twig")
        self._times = self.accessor(np.asarray(times, dtype=np.float32))

    # ------------------------------------------------------------------ data
    def accessor(self, data: np.ndarray, target: int | None = None) -> int:
        """Store ``data`` (n,) or (n, k) of float32/uint8/uint16/uint32 in its own buffer
        view; returns the accessor index. Bounds are those of the stored values."""
        data = np.ascontiguousarray(data)
        flat = data.reshape(len(data), -1)
        while len(self.blob) % 4:
            self.blob.append(0)
        view = len(self.gltf.bufferViews)
        self.gltf.bufferViews.append(gl.BufferView(buffer=0, byteOffset=len(self.blob),
                                                   byteLength=data.nbytes, target=target))
        self.blob.extend(data.tobytes())
        cast = float if data.dtype == np.float32 else int
        self.gltf.accessors.append(gl.Accessor(
            bufferView=view, componentType=_COMPONENTS[data.dtype], count=len(data),
            type=_TYPES[flat.shape[1]], min=[cast(v) for v in flat.min(axis=0)],
            max=[cast(v) for v in flat.max(axis=0)]))
        return len(self.gltf.accessors) - 1

    def material(self, rgba: tuple[float, float, float, float], double_sided: bool = False,
                 name: str | None = None) -> int:
        """A plain coloured material (one per colour, or per ``name`` given)."""
        key = (rgba, double_sided, name)
        if key not in self._materials:
            self._materials[key] = len(self.gltf.materials)
            self.gltf.materials.append(gl.Material(
                name=name,
                pbrMetallicRoughness=gl.PbrMetallicRoughness(
                    baseColorFactor=list(rgba), metallicFactor=0.0, roughnessFactor=0.8),
                doubleSided=double_sided))
        return self._materials[key]

    def mesh(self, mesh: Mesh, material: int, name: str,
             skin: tuple[np.ndarray, np.ndarray] | None = None) -> int:
        """A mesh of one triangle primitive; ``skin`` is (joints (V, 4), weights (V, 4))."""
        attributes = gl.Attributes(
            POSITION=self.accessor(mesh.positions.astype(np.float32), gl.ARRAY_BUFFER),
            NORMAL=self.accessor(mesh.normals.astype(np.float32), gl.ARRAY_BUFFER))
        if skin is not None:
            joints, weights = skin
            kind = np.uint8 if joints.max() < 256 else np.uint16
            attributes.JOINTS_0 = self.accessor(joints.astype(kind), gl.ARRAY_BUFFER)
            attributes.WEIGHTS_0 = self.accessor(weights.astype(np.float32), gl.ARRAY_BUFFER)
        kind = np.uint16 if len(mesh.positions) < 65536 else np.uint32
        indices = self.accessor(mesh.indices.reshape(-1).astype(kind), gl.ELEMENT_ARRAY_BUFFER)
        self.gltf.meshes.append(gl.Mesh(name=name, primitives=[gl.Primitive(
            attributes=attributes, indices=indices, material=material)]))
        return len(self.gltf.meshes) - 1

    # ------------------------------------------------------------------ nodes
    def node(self, name: str, parent: int | None = None, **fields) -> int:
        """Add a node under ``parent`` (or at the scene's root); returns its index."""
        index = len(self.gltf.nodes)
        self.gltf.nodes.append(gl.Node(name=name, **fields))
        if parent is None:
            self.gltf.scenes[0].nodes.append(index)
        else:
            self.gltf.nodes[parent].children.append(index)
        return index

    def skin(self, joints: list[int], rest: np.ndarray, root: int, name: str) -> int:
        """A skin over ``joints`` whose rest (bind) positions are ``rest`` (J, 3), m, with
        unrotated joints: the inverse bind matrices are translations by ``-rest``."""
        ibm = np.tile(np.eye(4, dtype=np.float32), (len(joints), 1, 1))
        ibm[:, 3, :3] = -rest  # column-major storage: the translation is the last column
        self.gltf.skins.append(gl.Skin(name=name, joints=joints, skeleton=root,
                                       inverseBindMatrices=self.accessor(ibm.reshape(-1, 16))))
        return len(self.gltf.skins) - 1

    # ------------------------------------------------------------------ animation
    def animate(self, node: int, path: str, values: np.ndarray, step: bool = False) -> None:
        """Keyframes of ``node``'s ``path`` (``translation``, ``rotation`` or ``scale``) at the
        shared times: ``values`` (F, 3) or (F, 4) quaternions (x, y, z, w)."""
        sampler = len(self._animation.samplers)
        self._animation.samplers.append(gl.AnimationSampler(
            input=self._times, output=self.accessor(values.astype(np.float32)),
            interpolation=gl.ANIM_STEP if step else gl.ANIM_LINEAR))
        self._animation.channels.append(gl.AnimationChannel(
            sampler=sampler, target=gl.AnimationChannelTarget(node=node, path=path)))

    def encode(self, binary: bool = True) -> bytes:
        """The document as GLB bytes, or as glTF JSON with the buffer embedded (base64)."""
        self.gltf.animations = [self._animation]
        while len(self.blob) % 4:
            self.blob.append(0)
        if binary:
            self.gltf.buffers = [gl.Buffer(byteLength=len(self.blob))]
            self.gltf.set_binary_blob(bytes(self.blob))
            return b"".join(self.gltf.save_to_bytes())
        uri = "data:application/octet-stream;base64," + base64.b64encode(self.blob).decode()
        self.gltf.buffers = [gl.Buffer(uri=uri, byteLength=len(self.blob))]
        return self.gltf.gltf_to_json().encode()
