"""Peer simulators that run twig's constraint problem in other position-based engines.

A benchmark builds one :class:`ConstraintProblem` (particles, inverse masses, distance links,
rest lengths, iteration count, tick length) and hands it to twig and to every peer here, then
times ``step(n)`` and compares link-length error. The peers are:

* :class:`PypbdPeer`: ``pypbd``, the Python bindings of Jan Bender's C++ PositionBasedDynamics
  (Gauss-Seidel over graph-coloured constraint groups, OpenMP-parallel within a group; the
  thread count can be set per peer).
* :class:`WarpCpuPeer`: NVIDIA Warp kernels on ``device="cpu"``: Verlet prediction, then Jacobi
  link projection with per-node averaging of the accumulated corrections.

Both engines are optional (``pip install 'twig[bench]'``); :func:`available_peers` says which
ones can run here and why the others cannot. Neither engine is imported until a peer is built.
"""

import ctypes
import functools
import importlib
import time
from dataclasses import dataclass
from types import SimpleNamespace
from typing import ClassVar, Protocol

import numpy as np

from twig.errors import PhysicsError, TwigError

_INSTALL_HINT = "pip install 'twig[bench]'"


class PeerError(TwigError):
    """A peer cannot simulate the requested problem, or was used after being superseded."""


@dataclass(frozen=True, eq=False)
class ConstraintProblem:
    """A particle system with distance constraints, as every peer must simulate it.

    The arrays are validated, converted to the dtypes below and stored as read-only copies,
    so one problem can be handed to several peers without any of them altering it.

    Attributes
    ----------
    pos : numpy.ndarray
        (N, 3) float64 initial positions in metres, y up. Every node starts at rest.
    inv_mass : numpy.ndarray
        (N,) float64 inverse masses in 1/kg; 0 marks a pinned node that never moves.
    links : numpy.ndarray
        (L, 2) int32 node indices of the distance constraints, two distinct nodes each.
    rest : numpy.ndarray
        (L,) float64 rest lengths in metres.
    iterations : int
        Relaxation (projection) iterations per tick, at least 1.
    dt : float
        Seconds per tick.
    gravity : tuple of float
        Acceleration (x, y, z) in m/s^2 applied to every free node.
    ground : bool
        If True, free nodes are kept at y >= 0 (the plane y = 0).
    damping : float
        Verlet damping d in [0, 1) of ``p' = (2 - d) p - (1 - d) p_prev + a dt^2``.
    """

    pos: np.ndarray
    inv_mass: np.ndarray
    links: np.ndarray
    rest: np.ndarray
    iterations: int
    dt: float = 1 / 60
    gravity: tuple[float, float, float] = (0.0, -9.81, 0.0)
    ground: bool = False
    damping: float = 0.01

    def __post_init__(self) -> None:
        pos = _frozen(self.pos, np.float64)
        inv_mass = _frozen(self.inv_mass, np.float64)
        links = _frozen(self.links, np.int32)
        rest = _frozen(self.rest, np.float64)
        n = pos.shape[0] if pos.ndim == 2 else -1
        if pos.shape != (n, 3) or n < 1 or not np.isfinite(pos).all():
            raise PhysicsError(f"pos must be a finite (N, 3) array with N >= 1, got {pos.shape}")
        if inv_mass.shape != (n,) or not (np.isfinite(inv_mass) & (inv_mass >= 0)).all():
            raise PhysicsError(f"inv_mass must be ({n},) finite values >= 0, got {inv_mass.shape}")
        n_links = links.shape[0] if links.ndim == 2 else -1
        if links.shape != (n_links, 2) or ((links < 0) | (links >= n)).any():
            raise PhysicsError(f"links must be (L, 2) node indices in [0, {n}), got {links.shape}")
        if (links[:, 0] == links[:, 1]).any():
            raise PhysicsError("every link must join two distinct nodes")
        if rest.shape != (n_links,) or not (np.isfinite(rest) & (rest >= 0)).all():
            raise PhysicsError(f"rest must be ({n_links},) finite lengths >= 0, got {rest.shape}")
        if int(self.iterations) != self.iterations or self.iterations < 1:
            raise PhysicsError(f"iterations must be an integer >= 1, got {self.iterations!r}")
        if not (np.isfinite(self.dt) and self.dt > 0):
            raise PhysicsError(f"dt must be a positive number of seconds, got {self.dt!r}")
        if not 0 <= self.damping < 1:
            raise PhysicsError(f"damping must lie in [0, 1), got {self.damping!r}")
        gravity = tuple(float(g) for g in self.gravity)
        if len(gravity) != 3 or not np.isfinite(gravity).all():
            raise PhysicsError(f"gravity must be three finite numbers, got {self.gravity!r}")
        for field, value in (
            ("pos", pos),
            ("inv_mass", inv_mass),
            ("links", links),
            ("rest", rest),
            ("iterations", int(self.iterations)),
            ("dt", float(self.dt)),
            ("gravity", gravity),
            ("ground", bool(self.ground)),
            ("damping", float(self.damping)),
        ):
            object.__setattr__(self, field, value)


def _frozen(values: np.ndarray, dtype: type) -> np.ndarray:
    """Return a read-only C-contiguous copy of ``values`` as ``dtype`` (shape unchanged)."""
    out = np.array(values, dtype=dtype, order="C", copy=True)
    out.setflags(write=False)
    return out


def mean_link_error(problem: ConstraintProblem, positions: np.ndarray) -> float:
    """Mean relative link-length error ``|len - rest| / rest`` over links with ``rest > 0``.

    Parameters
    ----------
    problem : ConstraintProblem
        Supplies the links and their rest lengths.
    positions : numpy.ndarray
        (N, 3) node positions in metres, e.g. ``peer.positions()``.

    Returns
    -------
    float
        Dimensionless mean error (0.05 means links are off by 5 % on average); 0.0 when no link
        has a positive rest length.
    """
    keep = problem.rest > 0
    a, b = problem.links[keep, 0], problem.links[keep, 1]
    lengths = np.linalg.norm(positions[b] - positions[a], axis=1)
    rest = problem.rest[keep]
    return float(np.mean(np.abs(lengths - rest) / rest)) if rest.size else 0.0


class Peer(Protocol):
    """What the benchmark needs from a simulator that runs a :class:`ConstraintProblem`.

    Attributes
    ----------
    name : str
        Short label for reports, e.g. ``"pypbd"``.
    notes : str
        How the peer departs from twig's scheme (solver order, ignored fields, limits).
    supports_ground : bool
        Whether the peer accepts problems with ``ground=True``.
    """

    name: str
    notes: str
    supports_ground: bool

    def step(self, n: int) -> None:
        """Advance ``n`` ticks of ``problem.dt``, ``problem.iterations`` projections each."""
        ...

    def positions(self) -> np.ndarray:
        """Return an (N, 3) float64 copy of the current node positions in metres."""
        ...


def _check_ticks(n: int) -> int:
    """Return ``n`` as an int after checking that it is a tick count >= 0."""
    if int(n) != n or n < 0:
        raise PeerError(f"step(n) needs an integer n >= 0, got {n!r}")
    return int(n)


@functools.cache
def _openmp_runtime() -> ctypes.CDLL | None:
    """The OpenMP runtime pypbd loaded (its bundled libgomp), or None if none can be found.

    Looked up among the shared libraries mapped into this process (``/proc/self/maps``, Linux),
    preferring one from pypbd's own wheel; loading it again returns the same library, so
    ``omp_set_num_threads`` on it sets the thread count of pypbd's parallel loops.
    """
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if ".so" in line}
    except OSError:
        return None
    runtimes = sorted((p for p in paths if "omp" in p.rsplit("/", 1)[-1]),
                      key=lambda p: ("pypbd" not in p, p))
    for path in runtimes:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        if hasattr(lib, "omp_set_num_threads") and hasattr(lib, "omp_get_max_threads"):
            return lib
    return None


class PypbdPeer:
    """The problem run by pypbd (PositionBasedDynamics) through its ``TimeStepController``.

    Each node becomes a PBD particle (mass ``1 / inv_mass``, or mass 0 = static for a pinned
    node) and each link a ``DistanceConstraint`` of stiffness 1 whose rest length is overwritten
    with ``problem.rest``. The controller runs one sub-step of ``problem.dt`` per tick with
    exactly ``problem.iterations`` position iterations (PBD's loop runs ``MAX_ITERATIONS`` times;
    2.2.2 has no minimum-iterations setting or adaptive step) and 0 velocity iterations.

    pypbd keeps one global ``Simulation``: building a peer clears and refills its model, after
    which any older ``PypbdPeer`` raises :class:`PeerError` instead of stepping the new problem.

    Parameters
    ----------
    problem : ConstraintProblem
        Must have ``ground=False`` and PBD's fixed gravity ``(0, -9.81, 0)``.
    threads : int, optional
        OpenMP threads for pypbd's parallel loops, set with ``omp_set_num_threads`` on pypbd's
        OpenMP runtime before every :meth:`step`; None keeps the runtime's setting
        (``OMP_NUM_THREADS``, else one per core).

    Attributes
    ----------
    threads : int or None
        Threads pypbd's parallel loops use, as OpenMP reports it (None if no runtime found).

    Raises
    ------
    PeerError
        If the problem asks for a ground plane or another gravity (see :attr:`notes`), pypbd
        rejects a constraint, or ``threads`` is given and pypbd's OpenMP runtime is not found.
    """

    name = "pypbd"
    supports_ground = False
    notes = (
        "Gauss-Seidel over graph-coloured constraint groups, each group OpenMP-parallel "
        "(the peer's threads); semi-implicit Euler + first-order velocity update, which is "
        "undamped Verlet: problem.damping is ignored because PBD's TimeStepController has no "
        "particle damping. Gravity is PBD's built-in (0, -9.81, 0): the bindings cannot set the "
        "vector parameter. No ground: positions come back only as a read-only memoryview, so a "
        "y >= 0 clamp would need a per-particle setPosition/setVelocity loop in Python. The "
        "default collision detector cannot be removed (setting None crashes) but has no "
        "collision objects, so it finds nothing."
    )
    _PBD_GRAVITY = (0.0, -9.81, 0.0)
    _latest: ClassVar[int] = 0

    def __init__(self, problem: ConstraintProblem, threads: int | None = None) -> None:
        import pypbd

        runtime = _openmp_runtime()
        if threads is not None:
            if int(threads) != threads or threads < 1:
                raise PeerError(f"threads must be an integer >= 1, got {threads!r}")
            if runtime is None:
                raise PeerError("cannot set pypbd's thread count: its OpenMP runtime not found")
            runtime.omp_set_num_threads(int(threads))
        self.threads = None if runtime is None else int(runtime.omp_get_max_threads())
        self._runtime = runtime if threads is not None else None
        if problem.ground:
            raise PeerError(f"{self.name} peer has no ground plane: {self.notes}")
        if not np.allclose(problem.gravity, self._PBD_GRAVITY, rtol=0, atol=1e-12):
            raise PeerError(
                f"{self.name} peer only simulates gravity {self._PBD_GRAVITY}, "
                f"got {problem.gravity}"
            )
        sim = pypbd.Simulation.getCurrent()
        model = sim.getModel()
        if model is None:
            sim.initDefault()
            model = sim.getModel()
        else:
            model.cleanup()
        controller = sim.getTimeStep()
        controller.reset()
        settings = pypbd.TimeStepController
        controller.setValueUInt(settings.NUM_SUB_STEPS, 1)
        controller.setValueUInt(settings.MAX_ITERATIONS, problem.iterations)
        controller.setValueUInt(settings.MAX_ITERATIONS_V, 0)
        controller.setValueInt(settings.VELOCITY_UPDATE_METHOD, 0)  # first order = Verlet
        clock = pypbd.TimeManager.getCurrent()
        clock.setTimeStepSize(problem.dt)
        clock.setTime(0.0)

        particles = model.getParticles()
        particles.reserve(len(problem.pos))
        for p in problem.pos:
            particles.addVertex(p)
        masses = np.divide(
            1.0, problem.inv_mass, out=np.zeros_like(problem.inv_mass), where=problem.inv_mass > 0
        )
        for i, mass in enumerate(masses.tolist()):
            particles.setMass(i, mass)
        for a, b in problem.links.tolist():
            if not model.addDistanceConstraint(a, b, 1.0):
                raise PeerError(f"pypbd rejected the distance constraint between {a} and {b}")
        for constraint, rest in zip(model.getConstraints(), problem.rest.tolist(), strict=True):
            constraint.restLength = rest
        model.initConstraintGroups()

        PypbdPeer._latest += 1
        self._generation = PypbdPeer._latest
        self._model = model
        self._controller = controller
        self._particles = particles

    def _check_current(self) -> None:
        """Raise :class:`PeerError` if a newer PypbdPeer has replaced this one's model."""
        if self._generation != PypbdPeer._latest:
            raise PeerError(
                "this PypbdPeer was superseded: pypbd holds one global simulation and a newer "
                "PypbdPeer has replaced its model"
            )

    def step(self, n: int) -> None:
        """Advance ``n`` ticks of ``problem.dt``.

        Parameters
        ----------
        n : int
            Number of ticks, >= 0.
        """
        self._check_current()
        if self._runtime is not None:
            self._runtime.omp_set_num_threads(self.threads)
        for _ in range(_check_ticks(n)):
            self._controller.step(self._model)

    def positions(self) -> np.ndarray:
        """Return an (N, 3) float64 copy of the current positions in metres."""
        self._check_current()
        return np.array(self._particles.getVertices(), dtype=np.float64)


@functools.cache
def _warp_kernels() -> SimpleNamespace:
    """Import and initialise Warp once, define the peer's kernels and return them.

    Returns
    -------
    types.SimpleNamespace
        ``wp`` (the module), ``predict``, ``project_links`` and ``apply_deltas`` kernels.
    """
    import warp as wp

    wp.config.log_level = wp.LOG_WARNING  # 1.19 replaced ``config.quiet`` by a log level
    wp.init()
    zero = wp.float64(0.0)

    @wp.kernel
    def predict(
        x: wp.array(dtype=wp.vec3d),
        x_prev: wp.array(dtype=wp.vec3d),
        inv_mass: wp.array(dtype=wp.float64),
        accel_dt2: wp.vec3d,
        keep: wp.float64,
    ):
        # Damped Verlet p' = p + (1 - d)(p - p_prev) + a dt^2; pinned nodes stay put.
        i = wp.tid()
        p = x[i]
        if inv_mass[i] > zero:
            x[i] = p + (p - x_prev[i]) * keep + accel_dt2
        x_prev[i] = p

    @wp.kernel
    def project_links(
        x: wp.array(dtype=wp.vec3d),
        inv_mass: wp.array(dtype=wp.float64),
        links: wp.array(dtype=wp.vec2i),
        rest: wp.array(dtype=wp.float64),
        delta: wp.array(dtype=wp.vec3d),
    ):
        # One thread per link: the mass-weighted projection of that link alone, accumulated.
        k = wp.tid()
        a = links[k][0]
        b = links[k][1]
        wa = inv_mass[a]
        wb = inv_mass[b]
        d = x[b] - x[a]
        length = wp.length(d)
        if wa + wb > zero and length > zero:
            corr = d * ((length - rest[k]) / (length * (wa + wb)))
            wp.atomic_add(delta, a, corr * wa)
            wp.atomic_sub(delta, b, corr * wb)

    @wp.kernel
    def apply_deltas(
        x: wp.array(dtype=wp.vec3d),
        delta: wp.array(dtype=wp.vec3d),
        scale: wp.array(dtype=wp.float64),
        inv_mass: wp.array(dtype=wp.float64),
        ground: wp.int32,
    ):
        # Jacobi update: corrections averaged over the node's link count, buffer re-zeroed,
        # then the ground plane projected like one more constraint.
        i = wp.tid()
        p = x[i] + delta[i] * scale[i]
        delta[i] = wp.vec3d(zero, zero, zero)
        if ground != 0 and inv_mass[i] > zero and p[1] < zero:
            p = wp.vec3d(p[0], zero, p[2])
        x[i] = p

    return SimpleNamespace(
        wp=wp, predict=predict, project_links=project_links, apply_deltas=apply_deltas
    )


class WarpCpuPeer:
    """The problem run by hand-written NVIDIA Warp kernels on ``device="cpu"``.

    Per tick: one ``predict`` launch (damped Verlet, the same update as twig), then
    ``problem.iterations`` Jacobi passes, each a ``project_links`` launch (one thread per link,
    corrections summed into a delta buffer with ``wp.atomic_add``) and an ``apply_deltas``
    launch that moves every node by the average of its corrections (sum divided by the number
    of links that can move it) and clamps free nodes to y >= 0 when ``problem.ground``.
    Averaging is unconditionally stable (a 128 x 128 cloth at 1 iteration stays calm) at the
    price of slower convergence than Gauss-Seidel. All arrays are float64, created once here;
    launches are pre-recorded (``record_cmd=True``) so a tick allocates nothing.

    Parameters
    ----------
    problem : ConstraintProblem
        Any valid problem; ground, gravity and damping are all honoured.

    Attributes
    ----------
    compile_seconds : float
        Wall time spent compiling or loading the kernels on the CPU in this constructor (near 0
        once Warp's kernel cache or an earlier peer in the process has them).
    """

    name = "warp-cpu"
    supports_ground = True
    notes = (
        "Jacobi projection, corrections averaged per node over its link count (no "
        "over-relaxation), float64, Warp's CPU backend runs each launch on one thread; "
        "damped Verlet integration and ground clamp inside each iteration, as in twig."
    )

    def __init__(self, problem: ConstraintProblem) -> None:
        k = _warp_kernels()
        wp = k.wp
        n = len(problem.pos)
        w = problem.inv_mass
        a, b = problem.links[:, 0], problem.links[:, 1]
        # A node's correction is averaged over the links that can move it (w_node > 0).
        moving = np.bincount(a[w[a] > 0], minlength=n) + np.bincount(b[w[b] > 0], minlength=n)
        scale = 1.0 / np.maximum(moving, 1)

        x = wp.array(problem.pos, dtype=wp.vec3d, device="cpu")
        x_prev = wp.array(problem.pos, dtype=wp.vec3d, device="cpu")
        inv_mass = wp.array(w, dtype=wp.float64, device="cpu")
        links = wp.array(problem.links, dtype=wp.vec2i, device="cpu")
        rest = wp.array(problem.rest, dtype=wp.float64, device="cpu")
        delta = wp.zeros(n, dtype=wp.vec3d, device="cpu")
        scale_arr = wp.array(scale, dtype=wp.float64, device="cpu")
        accel_dt2 = wp.vec3d(*(np.asarray(problem.gravity) * problem.dt**2))

        start = time.perf_counter()
        wp.load_module(k.predict.module, device="cpu")
        self.compile_seconds = time.perf_counter() - start

        def record(kernel: object, dim: int, inputs: list) -> object:
            return wp.launch(kernel, dim=dim, inputs=inputs, device="cpu", record_cmd=True)

        self._predict = record(
            k.predict, n, [x, x_prev, inv_mass, accel_dt2, wp.float64(1.0 - problem.damping)]
        )
        self._project = record(k.project_links, len(rest), [x, inv_mass, links, rest, delta])
        self._apply = record(
            k.apply_deltas, n, [x, delta, scale_arr, inv_mass, wp.int32(problem.ground)]
        )
        self._iterations = problem.iterations
        self._wp = wp
        self._x = x

    def step(self, n: int) -> None:
        """Advance ``n`` ticks of ``problem.dt`` and wait for the kernels to finish.

        Parameters
        ----------
        n : int
            Number of ticks, >= 0.
        """
        for _ in range(_check_ticks(n)):
            self._predict.launch()
            for _ in range(self._iterations):
                self._project.launch()
                self._apply.launch()
        self._wp.synchronize()

    def positions(self) -> np.ndarray:
        """Return an (N, 3) float64 copy of the current positions in metres."""
        return np.array(self._x.numpy(), dtype=np.float64)


_PEERS: tuple[tuple[str, str, type], ...] = (
    (PypbdPeer.name, "pypbd", PypbdPeer),
    (WarpCpuPeer.name, "warp", WarpCpuPeer),
)


def available_peers() -> list[tuple[str, type | None, str]]:
    """List every peer with its class if its engine imports here, else the reason it does not.

    Returns
    -------
    list of (str, type or None, str)
        ``(name, class, "")`` for a usable peer, ``(name, None, reason)`` otherwise, e.g.
        ``("pypbd", None, "pypbd not installed (pip install 'twig[bench]')")``.
    """
    peers: list[tuple[str, type | None, str]] = []
    for name, module, cls in _PEERS:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            reason = "not installed" if exc.name == module else f"failed to import: {exc}"
            peers.append((name, None, f"{module} {reason} ({_INSTALL_HINT})"))
        except (ImportError, OSError) as exc:
            peers.append((name, None, f"{module} failed to import: {exc} ({_INSTALL_HINT})"))
        else:
            peers.append((name, cls, ""))
    return peers
