# Two commands: `make run` serves the app, `make test` runs the tests. Both create .venv on first use.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: run test test-gpu browser-test gpu-diagnose clean

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

# On a GPU machine with its own python3 (torch there, no .venv): the diagnose recording, under a
# 420 s budget per call, resumed by the next call; repeat until it prints "complete": true.
GPU_PY       ?= python3
DIAGNOSE_REC ?= lessons/recordings/diagnose_h200.json
gpu-diagnose:
	PYTHONUNBUFFERED=1 $(GPU_PY) -m runtime_core diagnose --sweep --record $(DIAGNOSE_REC) --budget-s 420 \
		$(if $(wildcard $(DIAGNOSE_REC)),--resume)

clean:
	rm -rf $(VENV) .pytest_cache
