# Two commands: `make run` serves the app, `make test` runs the tests. Both create .venv on first use.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: run test test-gpu browser-test clean

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

clean:
	rm -rf $(VENV) .pytest_cache
