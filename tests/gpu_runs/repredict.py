"""Make every prediction of a shipped diagnose recording again with the code as it is now (after a
model change), keeping what was measured: the zoo's (record.snapshot) or the external grid's
(record_external.snapshot, its merged re-checks too). No GPU: each point keeps its profile.

    python tests/gpu_runs/repredict.py lessons/recordings/diagnose_h200.json lessons/recordings/diagnose_external_h200.json
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from runtime_core.diagnose import record, record_external  # noqa: E402
from runtime_core.diagnose.records import recording_set  # noqa: E402
from runtime_core.recordings import store  # noqa: E402

for path in sys.argv[1:]:
    doc = store.load(path, kind="diagnose").data
    external = recording_set(doc) == "external"
    doc = (record_external.snapshot if external else record.snapshot)(doc)
    store.write(path, doc)
    acc = doc["summary"]["accuracy"]
    print(f"{path}: speedups within ±15% {acc['within']}/{acc['eligible']}")
