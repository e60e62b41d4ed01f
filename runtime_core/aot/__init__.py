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
    compile_stages.py  where a cold and a warm first compile spend their time; the caches' counters
    serving_plan.py    one ranged package and exact-shape ones: which request each serves, timed
    serving_run.py     the serving child: load the packages, serve, the package's own input check
    serving_measure.py build the packages, run the serving child and the C++ runner, save results
    ro_lab.py          what mode="reduce-overhead" really does (the reduce_overhead lab), in a child:
      ro_buffers.py      inputs copied in for you, outputs overwritten, cudagraph_mark_step_begin
      ro_shapes.py       a graph per new shape and torch's warning; regions it skips, with reasons
      ro_kernels.py      kernels per step in our graph and in reduce-overhead's
"""
