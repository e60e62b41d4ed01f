#!/usr/bin/env bash
# GPU session 12 (issue 28): record the four torch-level labs (partial_capture, training_step,
# graph_rng, d2h_hazard) on one H200, each in its own process (a lab whose capture breaks the CUDA
# context cannot take the others with it), then their GPU tests. About 300 s on one H200.
# Returns under $OUT: labs28/<lab>.json (one per lab: {recorded_at, result} or {recorded_at, error}),
# gpu_tests.log, env.txt (6 files: a call brings back at most 8; each lab's log goes to stdout)
#
# Run (one call):   run(kind="nvidia-h200", command="bash tests/gpu_runs/session12_labs.sh", timeout_s=480)
# Then, here:       python tests/gpu_runs/merge_labs28.py <files_at>/labs28/*.json
#                   pytest -q tests/test_torch_labs.py tests/test_prose_figures.py tests/test_new_lab_pages.py
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/labs28"
[ -d .whl ] && python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=$PWD:/tmp/site PATH=/tmp/site/bin:$PATH
python3 -c "import torch; print(torch.__version__, torch.version.cuda, torch.cuda.get_device_name(0))" | tee "$OUT/env.txt"
for lab in partial_capture training_step graph_rng d2h_hazard; do
  echo "=== $lab"
  timeout "${T_LAB:-75}" python3 tests/gpu_runs/record_labs28.py "$lab" "$OUT/labs28" > "/tmp/$lab.log" 2>&1
  echo "rc=$?"; grep -v "^\[W\|^frame #\|^Exception raised from" "/tmp/$lab.log" | tail -n 6
done
echo "=== pytest -m gpu tests/test_torch_labs_gpu.py"
timeout "${T_TESTS:-120}" python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_torch_labs_gpu.py \
  > "$OUT/gpu_tests.log" 2>&1; echo "rc=$?"; tail -n 15 "$OUT/gpu_tests.log"
echo "=== done"
