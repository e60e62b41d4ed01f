#!/usr/bin/env bash
# GPU session 10, call 2: a new sweep whose calibration samples are the new experiments
# (model/experiments.py), 3 passes, resumed call by call; then its bounds. Returns under $OUT:
#   sweep_h200_next.json   copy to lessons/recordings/ after every call; once complete, git mv it
#                          over sweep_h200.json
#   sweep.log, bounds.log
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; BUDGET=${BUDGET:-450}
REC=lessons/recordings/sweep_h200_next.json
python3 -m runtime_core sweep --backend cuda --budget-s "$BUDGET" --passes 3 --resume --out "$REC" > "$OUT/sweep.log" 2>&1
echo "rc=$?"; tail -4 "$OUT/sweep.log"; cp "$REC" "$OUT/" 2>/dev/null
complete=$(python3 -c "import json; print(json.load(open('$REC'))['meta']['complete'])" 2>/dev/null)
echo "complete: $complete"
if [ "$complete" = "True" ]; then
  timeout 60 python3 -m runtime_core accuracy --bounds --recording "$REC" > "$OUT/bounds.log" 2>&1
  echo "rc=$?"; tail -14 "$OUT/bounds.log"
fi
