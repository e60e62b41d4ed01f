"""The CUDA backend: torch.cuda on a real GPU, one module per part.

    device.py        CudaDevice, the Device peer; objects.py: buffers, events, graphs
    sizing.py        the measured kernel-size table (work µs -> elements)
    cost.py          what a request costs here (device seconds)
    native.py        the C++ chain launcher (chain_launcher.cpp, built by ../../cpp_build.py)
    tracing.py       a step traced in the trace worker process (trace_worker.py)
"""
