# Two commands (see README): `make app` sets up and opens the dashboard; `make test` runs the tests.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: app test check ingest lint bench eval clean lock

# Every package, transitive ones included, is pinned in requirements.lock (used as pip constraints),
# and pip itself is pinned, so a fresh machine installs exactly what the tests ran with.
PIP_VERSION := 26.3
PIP_INSTALL := $(BIN)/pip install --quiet -c requirements.lock

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet pip==$(PIP_VERSION)

$(VENV)/.runtime: requirements.txt requirements.lock | $(BIN)/python
	$(PIP_INSTALL) -r requirements.txt
	touch $@

$(VENV)/.dev: requirements.txt requirements-cluster.txt requirements-dev.txt requirements.lock | $(BIN)/python
	$(PIP_INSTALL) -r requirements-dev.txt
	touch $(VENV)/.runtime $@

## lock: re-pin every installed package (run after changing requirements*.txt and installing them)
lock: $(VENV)/.dev
	$(BIN)/pip freeze --exclude-editable | grep -v '^-e ' > requirements.lock

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
	$(BIN)/python bench/tables_speed.py
	$(BIN)/python bench/scale.py
	$(BIN)/python bench/review_speed.py

eval: $(VENV)/.dev
	$(BIN)/python eval/extraction_fidelity.py
	$(BIN)/python eval/annotate_eval.py
	$(BIN)/python eval/sections_eval.py
	$(BIN)/python eval/bad_inputs.py

clean:
	rm -rf data/cache data/results
