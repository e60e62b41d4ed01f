"""What the pages need from the layers below: the checkpoint's checks, the claims page's verdicts,
the prose's figures, and the app's live GPU (live_gpu.py)."""
