# Two commands: `make run` serves the app, `make test` runs the tests. Both create .venv on first use.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: run test test-long test-gpu browser-test readme-shot loadtest record check-gpu gpu-diagnose clean

# First use (or a changed requirements.txt): a venv and the pinned packages, with pip's progress
# shown, since the first install downloads torch's CPU wheel and takes about two minutes.
$(STAMP): requirements.txt
	@echo "== first run: creating $(VENV) and installing torch (CPU), streamlit, plotly, pandas, pytest"
	@echo "== from requirements.txt: about 2 minutes and a few hundred MB of downloads; pip's progress follows"
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --disable-pip-version-check --progress-bar on -r requirements.txt
	touch $(STAMP)
	@echo "== $(VENV) is ready (the next make run starts at once)"

# Honours STREAMLIT_SERVER_PORT / STREAMLIT_SERVER_HEADLESS (Streamlit reads them itself). The documented
# variables are checked first (runtime_core/env_check.py): a junk port stops here in one line, the others
# say what the app uses instead.
run: $(STAMP)
	@$(PY) -m runtime_core.env_check
	@echo "== serving the app: open http://localhost:$${STREAMLIT_SERVER_PORT:-8501} (Ctrl-C stops it)"
	$(PY) -m streamlit run app.py

# CI's command. Slow tests run too; GPU tests skip themselves without CUDA. The few tests that do
# minutes of real compile work (marked long: AOTInductor builds from a cold cache, fresh-process
# compile caches) and the exhaustive sweeps (marked exhaustive: every bad-input case on every page,
# where make test runs a diagonal of them; builds killed at random moments) run in test-long, which
# CI runs right after (.ci/run): make test stays under five minutes on 2 cores. make test runs one
# pytest process per core (tests/run_shards.py; RUNTIME_TEST_SHARDS=1 for one plain pytest).
test: $(STAMP)
	$(PY) tests/run_shards.py -q -m "not long and not exhaustive"

test-long: $(STAMP)
	$(PY) -m pytest -q -m "long or exhaustive"

# Every page at 1280x720, 1920x1080, 1024x768, 1208x800 and 400x900 in headless Chromium (Debian's package:
# apt-get install -y chromium; never `playwright install`). Screenshots of each page and size go to
# $(BROWSER_SHOTS_DIR) (git-ignored; CI keeps it).
BROWSER_SHOTS_DIR ?= tests/browser/artifacts
browser-test: $(STAMP)
	$(PY) -m pip install -q --disable-pip-version-check playwright==1.65.2
	BROWSER_SHOTS_DIR=$(BROWSER_SHOTS_DIR) $(PY) -m pytest -q tests/browser
	@echo "== browser screenshots: $(BROWSER_SHOTS_DIR)"

# The README's screenshot (docs/widget.png): the widget at 1280x720, from the last browser test.
readme-shot:
	@test -f $(BROWSER_SHOTS_DIR)/1280x720/Launch_overhead_killer.png || \
		{ echo "no screenshot yet: run make browser-test first"; exit 1; }
	cp $(BROWSER_SHOTS_DIR)/1280x720/Launch_overhead_killer.png docs/widget.png

# A class on one server (tests/load/loadtest.py): SESSIONS browsers open the widget at once at their
# own settings and change a knob for three rounds; prints the server's CPU per first load and per
# knob change, its RSS per round, the browsers' p95s; exits 1 when a target is missed.
# SPREAD_N=1: the sessions' N spread from 10 to 2,000, every setting new to the server (issue 21).
SESSIONS ?= 20
SPREAD_N ?=
loadtest: $(STAMP)
	$(PY) -m pip install -q --disable-pip-version-check playwright==1.65.2
	$(PY) tests/load/loadtest.py --sessions $(SESSIONS) $(if $(SPREAD_N),--spread-n)

test-gpu: $(STAMP)
	$(PY) -m pytest -q -m gpu

# Record your own GPU, then check it. Both use $(PYTHON) directly (no venv, no install), so they
# run on a GPU machine that has torch but no package registry. The recording goes to
# lessons/recordings/<device>-<torch>-<date>.json (never a shipped file); re-running resumes it.
RECORD_BUDGET_S ?= 540
record:
	@out=$$($(PYTHON) -m runtime_core.recordings.names) || exit $$?; \
	echo "recording this GPU into $$out (budget $(RECORD_BUDGET_S) s; run again to resume)"; \
	$(PYTHON) -m runtime_core sweep --backend cuda --budget-s $(RECORD_BUDGET_S) --resume --out "$$out"

# REC=PATH checks that recording instead of this GPU's latest one (e.g. the shipped sweep_h200.json).
# It also gates both diagnose recordings: the zoo's (diagnose_h200.json) and the external grid's
# (diagnose_external_h200.json: public networks, one process over the grid, with 12 fresh-process
# re-checks beside it), and the held-out public networks outside that grid, one fresh process a
# point (validation/heldout.py; complete on the H100 first, so that card's file, the H200's once it is
# complete; decided before any of its points was measured, whatever it shows).
DIAGNOSE_RECS ?= lessons/recordings/diagnose_h200.json lessons/recordings/diagnose_external_h200.json \
	lessons/recordings/diagnose_heldout_h100.json
check-gpu:
	$(PYTHON) -m pytest -q -m gpu
	@rec="$(REC)"; [ -n "$$rec" ] || rec=$$($(PYTHON) -m runtime_core.recordings.names --latest) || exit $$?; \
	$(PYTHON) -m runtime_core accuracy --bounds --recording "$$rec"
	@fail=0; for r in $(DIAGNOSE_RECS); do $(PYTHON) -m runtime_core accuracy --recording "$$r" || fail=1; done; exit $$fail

# On a GPU machine with its own python3 (torch there, no .venv): the diagnose recording, under a
# 420 s budget per call, resumed by the next call; repeat until it prints "complete": true. As with
# `make record`, never a shipped file unless asked: DIAGNOSE_REC=lessons/recordings/diagnose_h200.json
# resumes the shipped one instead.
GPU_PY       ?= python3
DIAGNOSE_REC ?= lessons/recordings/diagnose_this_gpu.json
gpu-diagnose:
	PYTHONUNBUFFERED=1 $(GPU_PY) -m runtime_core diagnose --sweep --record $(DIAGNOSE_REC) --budget-s 420 \
		$(if $(wildcard $(DIAGNOSE_REC)),--resume)

clean:
	rm -rf $(VENV) .pytest_cache
