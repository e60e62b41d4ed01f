// A chain of N sleep kernels launched from C++: the same three dispatch modes as the widget, with
// a launch tax of a few µs instead of Python's ~9, so the model can be checked where the tax is
// below the work (the regime a C++ runtime or a fast host lives in).
//
//   chain_launcher CYCLES_PER_US REPS MODE N WORK_US [MODE N WORK_US ...]
//
// MODE is eager (launch, then synchronize, each kernel), streams (all launches, one synchronize)
// or graph (one replay of a captured chain, then synchronize). Each request prints one JSON line:
// {"mode", "n", "work_us", "wall_us" (median of REPS steps), "tax_us" (host µs per launch in a
// batch with no sync), "kernel_time_us" (GPU time of the chain, from many replays in bulk)}.
#include <c10/cuda/CUDAStream.h>
#include <ATen/cuda/CUDAGraph.h>
#include <ATen/cuda/Sleep.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

using Clock = std::chrono::steady_clock;

static double us_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

static void launch_chain(int n, int64_t cycles) {
  for (int i = 0; i < n; ++i) at::cuda::sleep(cycles);
}

// Warm up on a side stream, then capture there (the order make_graphed_callables uses).
static std::unique_ptr<at::cuda::CUDAGraph> capture_chain(int n, int64_t cycles) {
  auto side = c10::cuda::getStreamFromPool();
  c10::cuda::device_synchronize();
  auto graph = std::make_unique<at::cuda::CUDAGraph>();
  {
    c10::cuda::CUDAStreamGuard guard(side);
    launch_chain(n, cycles);
    side.synchronize();
    graph->capture_begin();
    launch_chain(n, cycles);
    graph->capture_end();
  }
  graph->replay();  // the first replay uploads the graph
  c10::cuda::device_synchronize();
  return graph;
}

static double tax_us(int64_t cycles) {
  const int launches = 200;
  std::vector<double> per;
  for (int b = 0; b < 5; ++b) {
    c10::cuda::device_synchronize();
    auto t0 = Clock::now();
    launch_chain(launches, cycles);
    per.push_back(us_since(t0) / launches);
  }
  c10::cuda::device_synchronize();
  return median(per);
}

// GPU time of the chain: many replays back to back, timed in bulk on the host clock (the one
// launch latency and the final sync are spread over all of them).
static double kernel_time_us(at::cuda::CUDAGraph& graph) {
  const int replays = 50;
  c10::cuda::device_synchronize();
  auto t0 = Clock::now();
  for (int i = 0; i < replays; ++i) graph.replay();
  c10::cuda::device_synchronize();
  return us_since(t0) / replays;
}

static double step_us(const std::string& mode, int n, int64_t cycles, at::cuda::CUDAGraph& graph) {
  c10::cuda::device_synchronize();
  auto t0 = Clock::now();
  if (mode == "eager") {
    for (int i = 0; i < n; ++i) {
      at::cuda::sleep(cycles);
      c10::cuda::device_synchronize();
    }
  } else if (mode == "streams") {
    launch_chain(n, cycles);
    c10::cuda::device_synchronize();
  } else {
    graph.replay();
    c10::cuda::device_synchronize();
  }
  return us_since(t0);
}

int main(int argc, char** argv) {
  if (argc < 6 || (argc - 3) % 3 != 0) {
    std::fprintf(stderr, "usage: %s CYCLES_PER_US REPS MODE N WORK_US [MODE N WORK_US ...]\n", argv[0]);
    return 2;
  }
  const double cycles_per_us = std::atof(argv[1]);
  const int reps = std::atoi(argv[2]);
  for (int a = 3; a + 2 < argc; a += 3) {
    const std::string mode = argv[a];
    const int n = std::atoi(argv[a + 1]);
    const double work_us = std::atof(argv[a + 2]);
    const int64_t cycles = static_cast<int64_t>(work_us * cycles_per_us);
    auto graph = capture_chain(n, cycles);
    for (int w = 0; w < 3; ++w) step_us(mode, n, cycles, *graph);  // warm-up steps
    std::vector<double> walls;
    for (int r = 0; r < reps; ++r) walls.push_back(step_us(mode, n, cycles, *graph));
    std::printf("{\"mode\": \"%s\", \"n\": %d, \"work_us\": %g, \"wall_us\": %.3f, \"tax_us\": %.3f, "
                "\"kernel_time_us\": %.3f}\n",
                mode.c_str(), n, work_us, median(walls), tax_us(cycles), kernel_time_us(*graph));
    std::fflush(stdout);
  }
  return 0;
}
