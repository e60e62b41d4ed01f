"""Check the lesson's numeric claims (lessons/claims.json) against measured numbers.

`evaluate_claims(sweep_rec, alloc_rec, decoder_rec)` computes, for every claim, what the
shipped GPU recordings (or a live lab run) measured, and a verdict:

    holds         the measurement falls inside what the claim says
    differs       it does not; `reason` says by how much and why
    not evidence  only the simulator produced the number: it shows the mechanism, but a simulated
                  GPU cannot confirm or refute a claim about real GPUs (a recording of a real GPU,
                  or a live run on one, can); `reason` says what the simulation showed
    no data       the source this claim needs is missing; `reason` says which

Nothing measured is typed in: every number comes from a recording or a lab dict passed in.
The checks themselves, one per claim id, are in claim_checks.py.
"""
from __future__ import annotations

import json

from ..recordings import RECORDINGS_DIR, Recording
from .claim_checks import CHECKS, missing

CLAIMS_PATH = RECORDINGS_DIR.parent / "claims.json"
VERDICTS = ("holds", "differs", "not evidence", "no data")
EVIDENCE_SOURCES = ("recorded", "live")  # a real GPU measured it: now, or in a shipped recording


def load_claims() -> list[dict]:
    """The claims of lessons/claims.json: id, section, claim, seed_value."""
    return json.loads(CLAIMS_PATH.read_text(encoding="utf-8"))["claims"]


def as_evidence(found: dict) -> dict:
    """A check's row with the verdict a measurement of its source can support: holds or differs
    only on a real GPU's number; a number from the simulator alone is "not evidence"."""
    if found["verdict"] in ("holds", "differs") and found["source"] not in EVIDENCE_SOURCES:
        side = ("agrees with the claim; only a real GPU's number can confirm it" if found["verdict"] == "holds"
                else "disagrees with the claim; only a real GPU's number can refute it")
        return dict(found, verdict="not evidence", reason=f"{found['reason']} The simulation {side}.")
    return found


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
                     if absent else as_evidence(check(recs, overlap_lab)))
        rows.append({"id": c["id"], "section": c.get("section", ""), "claim": c["claim"],
                     "seed_value": c["seed_value"], **found})
    return rows
