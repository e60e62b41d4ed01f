#!/usr/bin/env bash
# GPU session 11, call 2 (issue 25): the node-cost experiment (own process, it profiles), then the
# external grid recorded in one process (`diagnose --set external --record`). Returns under $OUT:
#   node_costs_h200.json, diagnose_external_h200.json, record.log
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=$PWD:/tmp/site
python3 -c "import jsonschema; print('jsonschema', jsonschema.__version__)" 2>&1 | tail -1
echo "=== node costs"
timeout 150 python3 -m runtime_core node-costs --out "$OUT/node_costs_h200.json" --force 2> "$OUT/node_costs.log"; echo "rc=$?"; tail -2 "$OUT/node_costs.log"
[ -s "$OUT/node_costs_h200.json" ] && cp "$OUT/node_costs_h200.json" lessons/recordings/node_costs_h200.json
echo "=== external grid"
timeout ${REC_S:-440} python3 -m runtime_core diagnose --set external --record "$OUT/diagnose_external_h200.json" \
  --budget-s ${BUDGET_S:-420} --force --json 2> "$OUT/record.log" | tail -c 3000; echo "rc=$?"
grep "diagnose record" "$OUT/record.log" | tail -60
