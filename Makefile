# Set-up on a fresh machine is two commands: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
DB ?= outputs/convkgyarn.duckdb
STAMP := $(VENV)/.installed

.PHONY: install demo test test-live bench clean sample

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev,bench]'
	touch $(STAMP)

install: $(STAMP)

## The main job on the bundled sample: voice conversations with deixis, into outputs/.
demo: $(STAMP)
	$(BIN)/convkgyarn generate --interaction voice --deixis --db $(DB)
	$(BIN)/convkgyarn stats --db $(DB)

## All tests (those reading ../shared/data skip when it is absent, and fail under CI=true).
test: $(STAMP)
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_ingest.py

sample:
	$(PYTHON) wikidata/build_sample.py

clean:
	rm -rf $(VENV) outputs/*.duckdb benchmarks/.work
