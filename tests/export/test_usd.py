"""USD export (UsdSkel, written with Pixar's usd-core): usd-core's own validators find nothing
to report, and the joints UsdSkel computes from the file sit on the nodes of the NPZ."""

from __future__ import annotations

import numpy as np
import pytest
from expected import BVH_JOINTS, SITS_ON

import twig
from twig.cli import main
from twig.export import ExportError, write_usd

pxr = pytest.importorskip("pxr")
from pxr import Usd, UsdGeom, UsdSkel, UsdValidation  # noqa: E402


def _validate(path) -> list[str]:
    """Every error usd-core's validators (all of them, as ``usdchecker`` runs them) report."""
    stage = Usd.Stage.Open(str(path))
    context = UsdValidation.ValidationContext(
        UsdValidation.ValidationRegistry().GetOrLoadAllValidators())
    return [f"{e.GetName()}: {e.GetMessage()}" for e in context.Validate(stage)]


def _usd_joints(path, character: str) -> np.ndarray:
    """(F, J, 3) world positions of :data:`BVH_JOINTS` as UsdSkel computes them, metres."""
    stage = Usd.Stage.Open(str(path))
    cache = UsdSkel.Cache()
    root = UsdSkel.Root(stage.GetPrimAtPath(f"/World/{character}"))
    cache.Populate(root, Usd.TraverseInstanceProxies())
    query = cache.GetSkelQuery(UsdSkel.Skeleton(
        stage.GetPrimAtPath(f"/World/{character}/Skeleton")))
    order = [str(j).rsplit("/", 1)[-1] for j in query.GetJointOrder()]
    columns = [order.index(j) for j in BVH_JOINTS]
    xforms = UsdGeom.XformCache()
    frames = []
    for f in range(int(stage.GetEndTimeCode()) + 1):
        xforms.SetTime(Usd.TimeCode(f))
        world = query.ComputeJointWorldTransforms(xforms)
        frames.append([np.array(world[c].ExtractTranslation()) for c in columns])
    return np.array(frames)


def _npz_joints(path, character: str) -> np.ndarray:
    """(F, J, 3) the points the joints sit on, from the NPZ file alone."""
    data = np.load(path)
    names = list(data["node_name"])

    def node(n: str) -> np.ndarray:
        if n == "hips":
            return 0.5 * (node("l_hip") + node("r_hip"))
        return data["pos"][:, names.index(f"{character}/{n}")]

    return np.stack([node(SITS_ON[j]) for j in BVH_JOINTS], axis=1)


def test_usd_checker_is_clean_and_finds_damage(tmp_path):
    world = twig.load_scene("demo")
    recording = world.record()
    world.run(seconds=1)
    path = write_usd(recording, tmp_path / "demo.usda")
    assert _validate(path) == []
    stage = Usd.Stage.Open(str(path))
    assert UsdGeom.GetStageUpAxis(stage) == "Y" and UsdGeom.GetStageMetersPerUnit(stage) == 1
    assert stage.GetTimeCodesPerSecond() == pytest.approx(60)
    assert stage.GetDefaultPrim().GetPath() == "/World"
    for name in ("adult", "child"):
        assert stage.GetPrimAtPath(f"/World/{name}").IsA(UsdSkel.Root)
        body = stage.GetPrimAtPath(f"/World/{name}/Body")
        assert UsdSkel.BindingAPI(body).GetSkeleton().GetPath() == f"/World/{name}/Skeleton"
    colours = [tuple(UsdGeom.Mesh(stage.GetPrimAtPath(f"/World/{n}/Body"))
                     .GetDisplayColorAttr().Get()[0]) for n in ("adult", "child")]
    assert colours[0] != colours[1]  # each character its viewer colour
    # A skinned mesh without the binding schema applied: the checker says so.
    damaged = tmp_path / "damaged.usda"
    text = path.read_text()
    mesh = text.index('def Mesh "Body" (')
    cut = text.index('prepend apiSchemas = ["SkelBindingAPI"]', mesh)
    damaged.write_text(text[:cut] + text[cut + len('prepend apiSchemas = ["SkelBindingAPI"]'):])
    assert any("SkelBindingAPI" in e for e in _validate(damaged))


def test_joints_read_back_by_usdskel_sit_on_the_npz_nodes(motion, tmp_path):
    """A rag doll, a puppet, a walk and a hug: every joint of every frame, as UsdSkel computes
    it from the file, within 1e-5 m of its point in the NPZ (translations are float32)."""
    usd = write_usd(motion.recording, tmp_path / "motion.usda")
    motion.recording.save(tmp_path / "motion.npz")
    got = _usd_joints(usd, motion.character)
    want = _npz_joints(tmp_path / "motion.npz", motion.character)
    assert got.shape == want.shape
    error = np.linalg.norm(got - want, axis=-1)
    assert error.max() < 1e-5, (float(error.max()), BVH_JOINTS[int(error.max(0).argmax())])


def test_twig_run_writes_usd_and_refuses_bad_paths_before_the_run(tmp_path, capsys):
    out = tmp_path / "walk.usda"
    assert main(["run", "walk", "--seconds", "0.2", "--usd", str(out)]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    assert out.read_text().startswith("#usda 1.0") and _validate(out) == []
    assert main(["run", "walk", "--usd", str(tmp_path / "walk.glb")]) == 2
    assert "ending in .usda or .usd" in capsys.readouterr().err
    assert main(["run", "tetra", "--usd", str(tmp_path / "t.usda")]) == 2
    assert "no humanoid" in capsys.readouterr().err
    with pytest.raises(ExportError, match="no humanoid"):
        world = twig.load_scene("tetra")
        recording = world.record()
        world.step(2)
        write_usd(recording, tmp_path / "t.usda")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["walk.usda"]
