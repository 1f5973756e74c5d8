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

## The main job on the bundled sample: load it, report it, build F(t).
demo: $(STAMP)
	$(BIN)/convkgyarn kg load wikidata/sample-dump.json --db $(DB)
	$(BIN)/convkgyarn kg stats --db $(DB)
	$(BIN)/convkgyarn predicates extract --db $(DB)
	$(BIN)/convkgyarn predicates list Q5 --db $(DB)

## All tests (those reading ../shared/data skip when it is absent, and fail under CI=true).
test: $(STAMP)
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_ingest.py

sample:
	$(PYTHON) wikidata/build_sample.py

clean:
	rm -rf $(VENV) outputs/*.duckdb benchmarks/.work
