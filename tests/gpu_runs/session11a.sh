#!/usr/bin/env bash
# GPU session 11, call 1 (issue 25): the node-cost experiment on our own kernels, then the external
# grid diagnosed in one process with its raw eager profiles, then what a capture failure says today
# and what one fresh diagnose process costs. Returns under $OUT:
#   node_cost.json, external_probe.json, failure.log, fresh.log, session.log
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
python3 -c "import torch, torchvision, transformers; print(torch.__version__, torchvision.__version__, transformers.__version__, torch.cuda.get_device_name(0))"
echo "=== node cost"; timeout 150 python3 tests/gpu_runs/node_cost_probe.py "$OUT/node_cost.json" 2> "$OUT/node_cost.log"; echo "rc=$?"; tail -3 "$OUT/node_cost.log"
echo "=== failure"; (cd tests/fixtures && PYTHONPATH=$PWD:$OLDPWD timeout 60 python3 -m runtime_core diagnose --model uncapturable_model:make --batch 4 --no-compile --json) > "$OUT/failure.log" 2>&1; echo "rc=$?"; tail -30 "$OUT/failure.log"
echo "=== fresh"; /usr/bin/time -v timeout 90 python3 -m runtime_core diagnose --model validation.external:gpt2_decode --batch 1 --dtype bf16 --no-compile --json > "$OUT/fresh.log" 2>&1; echo "rc=$?"; grep -E "Elapsed|speedup" "$OUT/fresh.log" | head
echo "=== external"; timeout ${EXT_S:-330} python3 tests/gpu_runs/external_probe.py "$OUT/external_probe.json" all 2> "$OUT/external.log"; echo "rc=$?"; cat "$OUT/external.log" | tail -60
