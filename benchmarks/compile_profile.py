"""Where a first run's compile goes, kernel by kernel: ``python benchmarks/compile_profile.py
[SCENE]`` (default ``playground``) compiles the scene's kernels into an empty cache in this
process and prints each compiled function's CPU seconds, its own (callees excluded) and in
all, split by stage: Numba's type inference, its lowering to LLVM IR (Python), Numba's IR
inlining, LLVM's parsing, function passes, module passes and machine code, and the rest of
Numba's passes. A function compiled for several argument types (specializations) counts
once per type; the lines after the table name the arguments that differed.

Numba's ``numba:compile`` and ``numba:run_pass`` events nest, and the LLVM steps are timed by
wrapping the code library's methods, so each second is counted once, where it was spent.
Times are this thread's CPU time (``time.thread_time``), which a busy machine disturbs less
than wall time.
"""

import collections
import os
import sys
import tempfile
import time

STAGES = ("nopython_type_inference", "native_lowering", "inline_inlinables", "llvm_parse",
          "llvm_function_passes", "llvm_module_passes", "llvm_machine_code")


def main(scene: str) -> None:
    """Profile the compile of ``scene``'s first tick (and its loading) in an empty cache."""
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="twig-compile-")
    from numba.core import codegen
    from numba.core import event as ev

    frames: list[list] = []  # [kind, name, start, seconds of nested frames]
    own: dict[tuple[str, str], float] = collections.defaultdict(float)
    total: dict[str, float] = collections.defaultdict(float)
    signatures: dict[str, list] = collections.defaultdict(list)

    def owner() -> str:
        return next((f[1] for f in reversed(frames) if f[0] == "compile"), "(outside)")

    def push(kind: str, name: str) -> None:
        frames.append([kind, name, time.thread_time(), 0.0])

    def pop() -> tuple[str, str, float, float]:
        kind, name, start, nested = frames.pop()
        seconds = time.thread_time() - start
        if frames:
            frames[-1][3] += seconds
        return kind, name, seconds, seconds - nested

    class Listener(ev.Listener):
        def on_start(self, event):
            if event.kind == "numba:compile":
                function = event.data["dispatcher"].py_func
                name = f"{function.__module__.rsplit('.', 1)[-1]}.{function.__name__}"
                signatures[name].append(event.data["args"])
                push("compile", name)
            else:
                push("pass", event.data["name"].split(" [")[0])

        def on_end(self, event):
            kind, name, seconds, alone = pop()
            if kind == "compile":
                total[name] += seconds
                own[(name, "other")] += alone
            else:
                own[(owner(), name)] += alone

    ev.register("numba:compile", Listener())
    ev.register("numba:run_pass", Listener())

    def timed(cls, method: str, stage: str) -> None:
        original = getattr(cls, method)

        def wrapper(self, *args, **kwargs):
            push("llvm", stage)
            try:
                return original(self, *args, **kwargs)
            finally:
                own[(owner(), stage)] += pop()[3]

        setattr(cls, method, wrapper)

    timed(codegen.CPUCodeLibrary, "add_ir_module", "llvm_parse")
    timed(codegen.CPUCodeLibrary, "_optimize_functions", "llvm_function_passes")
    timed(codegen.CPUCodeLibrary, "_optimize_final_module", "llvm_module_passes")
    timed(codegen.JITCodeLibrary, "_finalize_specific", "llvm_machine_code")

    start = time.thread_time()
    import twig

    world = twig.load_scene(scene)
    world.step()
    print(f"{scene}: loading and the first tick took {time.thread_time() - start:.1f} s of CPU")

    by_name: dict[str, dict[str, float]] = collections.defaultdict(dict)
    for (name, stage), seconds in own.items():
        by_name[name][stage] = by_name[name].get(stage, 0.0) + seconds
    rows = sorted(((sum(st.values()), name, st) for name, st in by_name.items()), reverse=True)
    header = " ".join(f"{s.replace('nopython_', '').replace('llvm_', 'llvm ')[:12]:>12}"
                      for s in STAGES)
    print(f"{'function':38} {'n':>2} {'own s':>6} {'all s':>6} {header} {'rest':>6}")
    sums: dict[str, float] = collections.defaultdict(float)
    for seconds, name, st in rows:
        rest = seconds - sum(st.get(s, 0.0) for s in STAGES)
        for s in STAGES:
            sums[s] += st.get(s, 0.0)
        sums["rest"] += rest
        cells = " ".join(f"{st.get(s, 0.0):12.2f}" for s in STAGES)
        print(f"{name[:38]:38} {len(signatures[name]):2} {seconds:6.2f} {total[name]:6.2f} "
              f"{cells} {rest:6.2f}")
    cells = " ".join(f"{sums[s]:12.2f}" for s in STAGES)
    print(f"{'all':38} {'':2} {sum(r[0] for r in rows):6.2f} {'':6} {cells} {sums['rest']:6.2f}")
    for name, args in signatures.items():
        differing = [k for k in range(max(map(len, args)))
                     if len({str(a[k]) if k < len(a) else "-" for a in args}) > 1]
        for k in differing:
            print(f"{name}: argument {k} as " + ", ".join(
                sorted({str(a[k]) if k < len(a) else "-" for a in args})))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "playground")
