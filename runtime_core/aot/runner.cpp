// runner.cpp: load an AOTInductor .pt2 package and run it, with no Python anywhere.
//
// Usage: aot_runner PACKAGE DEVICE INPUT.bin OUTPUT.bin DIM0 [DIM1 ...]
//   PACKAGE   the .pt2 written by torch._inductor.aoti_compile_and_package
//   DEVICE    "cpu" or "cuda" (the device the package was compiled for)
//   INPUT     raw little-endian float32 values, DIM0 x DIM1 x ... of them
//   OUTPUT    where the first output is written, raw float32
// Prints one line of JSON: load_s, first_run_s, run_s (the median of AOT_RUNNER_REPEATS further
// runs, default 50: as many as the Python side times per cell), runs, output shape.
#include <torch/csrc/inductor/aoti_package/model_package_loader.h>
#include <ATen/ATen.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

at::Tensor read_input(const std::string& path, const std::vector<int64_t>& shape) {
  auto x = at::empty(shape, at::kFloat);
  std::ifstream in(path, std::ios::binary);
  in.read(reinterpret_cast<char*>(x.data_ptr<float>()), x.numel() * sizeof(float));
  if (!in) throw std::runtime_error("input file is shorter than the shape says: " + path);
  return x;
}

void write_output(const std::string& path, const at::Tensor& y) {
  auto host = y.to(at::kCPU).to(at::kFloat).contiguous();
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(host.data_ptr<float>()), host.numel() * sizeof(float));
  if (!out) throw std::runtime_error("could not write " + path);
}

// Run once and wait for the result: .to(kCPU) blocks until the device is done, so the clock
// measures the work, not just the launch.
double timed_run(torch::inductor::AOTIModelPackageLoader& loader, const at::Tensor& x,
                 std::vector<at::Tensor>* outputs) {
  auto t0 = std::chrono::steady_clock::now();
  *outputs = loader.run({x});
  (*outputs)[0].to(at::kCPU);
  return seconds_since(t0);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 6) {
    std::cerr << "usage: aot_runner PACKAGE DEVICE INPUT.bin OUTPUT.bin DIM0 [DIM1 ...]\n";
    return 2;
  }
  try {
    std::string package = argv[1], device = argv[2], in_path = argv[3], out_path = argv[4];
    std::vector<int64_t> shape;
    for (int i = 5; i < argc; ++i) shape.push_back(std::stoll(argv[i]));
    at::Tensor x = read_input(in_path, shape).to(at::Device(device));

    // The number this program exists for: how long loading the package takes without Python.
    auto t0 = std::chrono::steady_clock::now();
    torch::inductor::AOTIModelPackageLoader loader(package);
    double load_s = seconds_since(t0);

    std::vector<at::Tensor> outputs;
    double first_run_s = timed_run(loader, x, &outputs);
    std::vector<double> runs;
    const char* repeats_env = std::getenv("AOT_RUNNER_REPEATS");
    int repeats = repeats_env ? std::max(1, std::atoi(repeats_env)) : 50;
    for (int i = 0; i < repeats; ++i) runs.push_back(timed_run(loader, x, &outputs));
    std::sort(runs.begin(), runs.end());
    write_output(out_path, outputs[0]);

    std::cout << "{\"load_s\": " << load_s << ", \"first_run_s\": " << first_run_s
              << ", \"run_s\": " << runs[runs.size() / 2] << ", \"runs\": " << runs.size()
              << ", \"output_shape\": [";
    for (size_t i = 0; i < outputs[0].sizes().size(); ++i)
      std::cout << (i ? ", " : "") << outputs[0].sizes()[i];
    std::cout << "]}" << std::endl;
    return 0;
  } catch (const std::exception& e) {
    // One line, no newlines inside: the Python side shows it as the reason the runner failed.
    std::string msg = e.what();
    std::replace(msg.begin(), msg.end(), '\n', ' ');
    std::cerr << "aot_runner: " << msg.substr(0, 2000) << std::endl;
    return 1;
  }
}
