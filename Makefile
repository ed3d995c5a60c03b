# Two commands (see README): `make app` sets up and opens the dashboard; `make test` runs the tests.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: app test ingest lint bench eval clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.runtime: requirements.txt | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.dev: requirements.txt requirements-dev.txt | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $(VENV)/.runtime $@

## app: set up, ingest the shipped reports (failures are reported, not fatal), open the dashboard
app: $(VENV)/.runtime
	@$(BIN)/python -m ingest || echo "Some reports could not be read (listed above); the dashboard shows everything stored."
	$(BIN)/streamlit run app.py

## ingest: ingest every reports/*.yaml
ingest: $(VENV)/.runtime
	$(BIN)/python -m ingest

## test: set up with dev tools and run the whole test suite
test: $(VENV)/.dev
	$(BIN)/python -m pytest -q

lint: $(VENV)/.dev
	$(BIN)/ruff check .

bench: $(VENV)/.dev
	$(BIN)/python bench/ingest_speed.py
	$(BIN)/python bench/app_speed.py
	$(BIN)/python bench/scale.py

eval: $(VENV)/.dev
	$(BIN)/python eval/extraction_fidelity.py
	$(BIN)/python eval/annotate_eval.py
	$(BIN)/python eval/bad_inputs.py

clean:
	rm -rf data/cache data/results
