#!/usr/bin/env bash
# GPU session 5 (device tool, one H200, torch 2.11): a new sweep for issue 12, measured with the
# launch tax sampled before, in the middle of and after each point's steps (engine/measure.py),
# then the model's bounds and accuracy on it. The sweep takes more than one call: each call
# resumes lessons/recordings/sweep_h200_next.json (leave the file uncommitted in the working tree
# between calls of one session: untracked files travel) and sends it back under $OUT:
#   sweep_h200_next.json  copy it to lessons/recordings/ after every call; once "complete": true,
#                         `git mv` it over sweep_h200.json and commit
#   sweep.log             the sweep's progress lines
#   bounds.log            accuracy --bounds on it (only once it is complete)
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; BUDGET=${BUDGET:-500}
REC=lessons/recordings/sweep_h200_next.json
python3 -c "import torch; print(torch.__version__, torch.cuda.get_device_name(0))"
echo "=== 1. the sweep (budget $BUDGET s, resumed)"
python3 -m runtime_core sweep --backend cuda --budget-s "$BUDGET" --resume --out "$REC" > "$OUT/sweep.log" 2>&1
echo "rc=$?"; tail -5 "$OUT/sweep.log"; cp "$REC" "$OUT/" 2>/dev/null
complete=$(python3 -c "import json; print(json.load(open('$REC'))['meta']['complete'])" 2>/dev/null)
echo "complete: $complete"
if [ "$complete" = "True" ]; then
  echo "=== 2. the bounds and the accuracy on the new sweep (make check-gpu's second half)"
  timeout 60 python3 -m runtime_core accuracy --bounds --recording "$REC" > "$OUT/bounds.log" 2>&1
  echo "rc=$?"; tail -12 "$OUT/bounds.log"
fi
