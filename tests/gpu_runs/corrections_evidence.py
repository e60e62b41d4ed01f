"""GPU run for the corrections issue: the reduce-overhead skip regions with graph partitioning on
and off, and PyTorch's own caching allocator (record_stream, empty_cache, memory_stats), into one
JSON file that tests/gpu_runs/merge_corrections.py folds into the shipped recordings.

    python3 tests/gpu_runs/corrections_evidence.py OUT.json [PART]   # PART: torch_allocator, skips, ...
"""
import datetime
import json
import sys

import torch

from runtime_core.allocator.torch_caching import measure
from runtime_core.aot.ro_shapes import skipped_graphs


def main(out: str, only: str | None = None) -> None:
    doc = {"device_name": torch.cuda.get_device_name(), "torch_version": torch.__version__,
           "recorded_at": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}
    for name, fn in (("torch_allocator", measure), ("skips", lambda: skipped_graphs("cuda")),
                     ("skips_partition_off", lambda: skipped_graphs("cuda", partition=False))):
        if only and name != only:
            continue
        try:
            doc[name] = fn()
        except Exception as e:  # noqa: BLE001 (recorded: the other parts still run)
            doc[name] = {"error": f"{type(e).__name__}: {' '.join(str(e).split())[:400]}"}
        with open(out, "w") as f:
            json.dump(doc, f, indent=1)
    print(json.dumps(doc, indent=1)[:5000])


if __name__ == "__main__":
    main(*sys.argv[1:3])
