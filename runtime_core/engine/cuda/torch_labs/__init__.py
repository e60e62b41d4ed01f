"""The CUDA side of the four torch-level labs (issue 28): partial_capture, training_step, graph_rng
and d2h_hazard. Each module's `measure()` runs torch on this machine's GPU and returns raw numbers
(a plain dict); the lab modules in runtime_core/labs/ judge them (signal, verdict) and, without a
GPU, show the shipped H200 recording instead. These labs drive torch itself (make_graphed_callables,
an optimizer, dropout, pinned copies), which the simulator's device contract has no words for.

The parts of a mechanism that are plain tensor arithmetic (how masks are compared, how a training
step reads its static buffers, the network's branch) are written without a device, so the CPU
tests run them; every capture and replay here needs CUDA.
"""
