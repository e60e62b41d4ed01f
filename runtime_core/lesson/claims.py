"""Check the lesson's numeric claims (lessons/claims.json) against measured numbers.

`evaluate_claims(sweep_rec, alloc_rec, decoder_rec)` computes, for every claim, what the
shipped GPU recordings (or a live lab run) measured, and a verdict:

    holds     the measurement falls inside what the claim says
    differs   it does not; `reason` says by how much and why
    no data   the source this claim needs is missing; `reason` says which

Nothing measured is typed in: every number comes from a recording or a lab dict passed in.
The checks themselves, one per claim id, are in claim_checks.py.
"""
from __future__ import annotations

import json

from ..recordings import RECORDINGS_DIR, Recording
from .claim_checks import CHECKS, missing

CLAIMS_PATH = RECORDINGS_DIR.parent / "claims.json"
VERDICTS = ("holds", "differs", "no data")


def load_claims() -> list[dict]:
    """The claims of lessons/claims.json: id, section, claim, seed_value."""
    return json.loads(CLAIMS_PATH.read_text(encoding="utf-8"))["claims"]


def evaluate_claims(sweep_rec: Recording | None, alloc_rec: Recording | None, decoder_rec: Recording | None,
                    overlap_lab: dict | None = None, claims: list[dict] | None = None) -> list[dict]:
    """One row per claim: id, section, claim, seed_value, measured, verdict, reason, source
    ("recorded", "live", "simulated" or "missing") and source_detail.

    Args:
        sweep_rec, alloc_rec, decoder_rec: the shipped recordings, or None where none ships.
        overlap_lab: an overlap-lab result (sim or cuda) for the pinned-copy claim; a
            recording's labs.overlap is preferred when one has it.
        claims: the claims to check; default lessons/claims.json.
    """
    recs = {"sweep": sweep_rec, "alloc": alloc_rec, "decoder": decoder_rec}
    rows = []
    for c in claims if claims is not None else load_claims():
        check = CHECKS.get(c["id"])
        if check is None:
            found = missing(f"no check is written for claim id {c['id']!r} (runtime_core/claim_checks.py)")
        else:
            absent = [name for name in check.needs if recs[name] is None]
            found = (missing(f"needs the {' and '.join(absent)} recording, and none is shipped")
                     if absent else check(recs, overlap_lab))
        rows.append({"id": c["id"], "section": c.get("section", ""), "claim": c["claim"],
                     "seed_value": c["seed_value"], **found})
    return rows
