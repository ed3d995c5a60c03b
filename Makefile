# Two commands (see README): `make app` sets up and opens the dashboard; `make test` runs the tests.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: app test check ingest lint bench eval clean lock

# Every package, transitive ones included, is pinned in requirements.lock (used as constraints), and
# the installers themselves are pinned, so a fresh machine installs exactly what the tests ran with.
# uv installs the pinned set in seconds where pip takes a minute or more. The venv is made without
# pip (ensurepip costs more than the rest of the setup) and uv is put into it by the pip of $(PY);
# when that cannot be done (no pip there, no uv wheel for this platform, registry refused), the
# venv gets its own pip, and when uv cannot install, the pinned pip does the same install.
PIP_VERSION := 26.3
UV_VERSION := 0.13.9
VENV_PIP := $(BIN)/python -m pip
PIP_INSTALL := $(VENV_PIP) install --quiet -c requirements.lock
UV_INSTALL := $(BIN)/uv pip install --quiet --python $(BIN)/python -c requirements.lock
ENSUREPIP := $(BIN)/python -m ensurepip --upgrade >/dev/null
# install REQUIREMENTS-FILE: uv when the venv has it, else (or when it fails) the pinned pip
install = { [ -x $(BIN)/uv ] && $(UV_INSTALL) -r $(1); } || \
	{ $(ENSUREPIP) && $(VENV_PIP) install --quiet pip==$(PIP_VERSION) && $(PIP_INSTALL) -r $(1); }

$(BIN)/python:
	$(PY) -m venv --without-pip $(VENV)
	$(PY) -m pip --python $(BIN)/python install --quiet uv==$(UV_VERSION) 2>/dev/null || \
	{ $(ENSUREPIP) && $(VENV_PIP) install --quiet uv==$(UV_VERSION); } || \
	echo "uv could not be installed; pip installs the requirements instead"

$(VENV)/.runtime: requirements.txt requirements.lock | $(BIN)/python
	$(call install,requirements.txt)
	touch $@

$(VENV)/.dev: requirements.txt requirements-cluster.txt requirements-dev.txt requirements.lock | $(BIN)/python
	$(call install,requirements-dev.txt)
	touch $(VENV)/.runtime $@

## lock: re-pin every installed package (run after changing requirements*.txt and installing them)
lock: $(VENV)/.dev
	{ [ -x $(BIN)/uv ] && $(BIN)/uv pip freeze --python $(BIN)/python --exclude-editable || $(VENV_PIP) freeze --exclude-editable; } \
		| grep -v '^-e ' > requirements.lock

## app: set up, ingest the shipped reports (failures are reported, not fatal), open the dashboard
app: $(VENV)/.runtime
	@$(BIN)/python -m ingest || echo "Some reports could not be read (listed above); the dashboard shows everything stored."
	$(BIN)/streamlit run app.py

## ingest: ingest every reports/*.yaml
ingest: $(VENV)/.runtime
	$(BIN)/python -m ingest

## test: set up with dev tools and run the whole test suite on every core (listing the slowest tests);
## tests that share a costly module fixture (a Streamlit server, a Dask cluster) run on one worker
test: $(VENV)/.dev
	$(BIN)/python -m pytest -q --durations=20 -n auto --dist loadgroup

## check: the quick loop while developing: ruff, then every test not marked slow
check: $(VENV)/.dev
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -q -m "not slow" -n auto

lint: $(VENV)/.dev
	$(BIN)/ruff check .

bench: $(VENV)/.dev
	$(BIN)/python bench/ingest_speed.py
	$(BIN)/python bench/app_speed.py
	$(BIN)/python bench/benchmarks_page_speed.py
	$(BIN)/python bench/sections_speed.py
	$(BIN)/python bench/pathological.py
	$(BIN)/python bench/scale.py
	$(BIN)/python bench/review_speed.py

eval: $(VENV)/.dev
	$(BIN)/python eval/extraction_fidelity.py
	$(BIN)/python eval/annotate_eval.py
	$(BIN)/python eval/sections_eval.py
	$(BIN)/python eval/bad_inputs.py

clean:
	rm -rf data/cache data/results
