"""The AOT and serving lesson's engine: export -> AOTInductor package -> load (Python child, C++).

Where to look:
    models.py          the MLP that gets exported, and the 12-layer decoder step
    export.py          torch.export with a dynamic batch, then aoti_compile_and_package
    child.py           steps run in child processes (a loader segfault is a result)
    cpp_runner.py      build runner.cpp with g++ against libtorch, and run it
    coldwarm.py        cold vs warm compile, AOT load times, outputs vs eager
    serving.py         the guard-check -> dispatch loop, with recompile / pad / reject on a miss
    graph_capture.py   our CUDA-graph capture with static buffers (decoder worked example)
    decoder_bench.py   eager vs our graph vs raw torch.cuda.graph vs reduce-overhead (GPU)
    reduce_overhead.py torch.compile(mode="reduce-overhead"), cudagraph trees and skips (GPU)
"""
