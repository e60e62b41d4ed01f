# Two commands: `make run` serves the app, `make test` runs the tests. Both create .venv on first use.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: run test test-gpu browser-test record check-gpu gpu-diagnose clean

$(STAMP): requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -r requirements.txt
	touch $(STAMP)

# Honours STREAMLIT_SERVER_PORT / STREAMLIT_SERVER_HEADLESS (Streamlit reads them itself).
run: $(STAMP)
	$(PY) -m streamlit run app.py

# CI's command. Slow tests run too; GPU tests skip themselves without CUDA.
test: $(STAMP)
	$(PY) -m pytest -q

# The widget in headless Chromium (Debian's package, never `playwright install`).
browser-test: $(STAMP)
	$(PY) -m pip install -q --disable-pip-version-check playwright==1.65.2
	$(PY) -m pytest -q tests/browser

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

check-gpu:
	$(PYTHON) -m pytest -q -m gpu
	@rec=$$($(PYTHON) -m runtime_core.recordings.names --latest) || exit $$?; \
	$(PYTHON) -m runtime_core accuracy --bounds --recording "$$rec"

# On a GPU machine with its own python3 (torch there, no .venv): the diagnose recording, under a
# 420 s budget per call, resumed by the next call; repeat until it prints "complete": true.
GPU_PY       ?= python3
DIAGNOSE_REC ?= lessons/recordings/diagnose_h200.json
gpu-diagnose:
	PYTHONUNBUFFERED=1 $(GPU_PY) -m runtime_core diagnose --sweep --record $(DIAGNOSE_REC) --budget-s 420 \
		$(if $(wildcard $(DIAGNOSE_REC)),--resume)

clean:
	rm -rf $(VENV) .pytest_cache
