"""runtime_core: the engine of the lesson app. Imports torch, never streamlit.

Find things by folder:
    engine/      devices (simulated and CUDA), executors, graph capture, measurement, tracing
    model/       the closed-form model, its calibration, its accuracy against a recording
    recordings/  recording files: types, schemas, load/write, the sweep that makes them
    lesson/      the checkpoint's checks and the claims page's verdicts
    allocator/   the caching allocator and the memory plan it realizes
    aot/         torch.export -> AOTInductor, loaders, serving loop, the decoder example
    labs/        the failure-mode labs

At the top: knobs.py (the Knobs type), constants.py (a machine's named costs), result.py (what
every source of numbers returns), errors.py (UsageError) and cli.py (`python -m runtime_core`).
Start at `engine.device.get_device()`, `engine.measure.measure()` and `model.predict()`.
"""
