"""runtime_core: the engine of the lesson app. Imports torch, never streamlit.

The layers, bottom to top (LAYERS below; tests/test_layers.py holds the code to them). A module
imports only its own layer and the layers beneath, never one above, not even inside a function,
and no two modules import each other round a loop:

    base         knobs.py (the Knobs type), constants.py (a machine's named costs), result.py (what
                 every source of numbers returns), errors.py (UsageError), atomic.py (every file
                 write), cli_args.py (the shared argparse helpers), child_process.py (every child
                 process), and the cache shared by several layers: cache_paths.py, cache_lock.py,
                 cached_build.py, cpp_build.py
    engine/      devices (simulated and CUDA), executors, graph capture, measurement, tracing;
                 it gets its constants as arguments and reads no recording
    model/       the closed-form model, its calibration, its accuracy against a recording
    recordings/  recording files: types, schemas, load/write, the sweep that makes them
    allocator/   the caching allocator and the memory plan it realizes
    labs/        the failure-mode labs
    aot/         torch.export -> AOTInductor, loaders, serving loop, the decoder example
    diagnose/    "will CUDA graphs help my model?"
    lesson/      the checkpoint's checks and the claims page's verdicts
    pages/, app.py (outside this package) sit on top.

A CLI module (`PKG/cli.py`) sits at the top of the layer it serves: it may import its own package
and anything below. `cli.py` and `__main__.py` here sit above everything.
Start at `engine.backends.get_device()` (recordings.shipped.get_device() for the lesson's), `engine.measure.measure()` and `model.predict()`.
"""

# Package -> layer, bottom (0) to top. "base" is the top-level modules of runtime_core.
LAYERS = {
    "base": 0,
    "engine": 1,
    "model": 2, "recordings": 2, "allocator": 2,
    "labs": 3, "aot": 3, "diagnose": 3,
    "lesson": 4,
}
# The command line of the whole package: above every layer.
CLI_MODULES = ("runtime_core.cli", "runtime_core.__main__")
