#!/usr/bin/env bash
# Issue 25, ninth session (2026-12-04): does the eager step's pacing change its kernels' durations?
# Done (900 s of device time, two starts refused): STEP=queued (82 s), STEP=state (218 s), STEP=copies
# (53 s); every result is in tests/gpu_runs/results/ (queued_profile_h200.json, state_2026-12-04/,
# decode_copy_h200.json) and each probe's docstring says what it found. Owed: nothing by a rule.
# STEP=queued (~3 min): queued_profile_probe.py on 14 points of the external grid (the graph step
# timed, then the step as captured profiled paced, as the diagnosis does, and queued behind a sleep).
#   run(command="STEP=queued bash tests/gpu_runs/session24.sh", timeout_s=600)
#   then: cp <files_at>/queued_profile_h200.json tests/gpu_runs/results/ ; commit
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
case "${STEP:-queued}" in
  queued)
    python3 tests/gpu_runs/queued_profile_probe.py "$OUT/queued_profile_h200.json" \
      gpt2_decode:1:bf16 gpt2_decode:1:fp32 gpt2_decode:64:bf16 gpt2_decode:64:fp32 \
      gpt2_prompt:1:bf16 gpt2_prompt:1:fp32 gpt2_prompt:4:bf16 bert_base:1:bf16 bert_base:1:fp32 \
      resnet18:1:fp32 efficientnet_b0:4:bf16 mobilenet_v3_small:16:fp32 resnet18:64:bf16 bert_base:16:fp32 \
      2>&1 | grep -v -i warn
    ;;
esac
# STEP=state (~4 min): is the machine of the day the grids' machine? Its clocks and throttle reasons,
# the node costs of our own kernels (compare lessons/recordings/node_costs_h200.json, 2026-12-01),
# and two grid points diagnosed exactly as a user runs them (compare the shipped grid).
#   run(command="STEP=state bash tests/gpu_runs/session24.sh", timeout_s=600)
#   then: cp <files_at>/* tests/gpu_runs/results/state_2026-12-04/ ; commit
case "${STEP:-queued}" in
  state)
    { nvidia-smi -q -d CLOCK,PERFORMANCE,POWER,TEMPERATURE; lscpu | head -20; nproc; uptime; } > "$OUT/machine_state.txt" 2>&1
    python3 -m runtime_core node-costs --out "$OUT/node_costs_state.json" 2>&1 | grep -v -i warn | tail -5
    for p in "gpt2_decode 1 bf16" "resnet18 1 fp32"; do set -- $p
      python3 -m runtime_core diagnose --model validation.external:$1 --batch $2 --dtype $3 --no-compile --json \
        > "$OUT/diagnose_$1_$2_$3.json" 2> "$OUT/diagnose_$1_$2_$3.err"
      python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[1], {k: d.get(k) for k in ('host_dispatch_us','eager_us','graph_us','predicted_graph_us','predicted_eager_us','measured_graph_speedup','predicted_graph_speedup')})" "$OUT/diagnose_$1_$2_$3.json"
    done
    nvidia-smi -q -d CLOCK,PERFORMANCE >> "$OUT/machine_state.txt" 2>&1
    ;;
esac
# STEP=copies (~90 s): decode_copy_probe.py (GPT-2 decode's counter copies as memcpy nodes or as kernels)
#   run(command="STEP=copies bash tests/gpu_runs/session24.sh", timeout_s=300)
#   then: cp <files_at>/decode_copy_h200.json tests/gpu_runs/results/ ; commit
case "${STEP:-queued}" in
  copies) python3 tests/gpu_runs/decode_copy_probe.py "$OUT/decode_copy_h200.json" 2>&1 | grep -v -i warn ;;
esac
