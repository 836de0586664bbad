# The two commands of the README. Each sets up what it needs (a virtual environment in .venv
# with the project installed from pyproject.toml) on first use, then does its job.
#   make run    the main job: check every shipped spec, run its rulings, simulate it, prove its
#               properties (rulespec verify), compare the editions (rulespec diff), and build the
#               rules reference site with those results (docs/generated/, then site/ by mkdocs)
#   make test   the whole test suite, slow tests included (what CI runs)

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
RULEBOOKS ?= $(firstword $(wildcard ../shared/rulebooks) $(RULESPEC_RULEBOOKS))
GAMES ?= 200
# time limit (s) of each solver query in `make reports`
TIMEOUT ?= 10
# what `make reports` proves: the examples take minutes; the real games (spec/) take hours with
# this prover, so they are left to `make reports VERIFY="examples spec"`
VERIFY ?= examples
EDITIONS := $(wildcard spec/sieben_weisen/nl.rules spec/sieben_weisen/it.rules)

.PHONY: run test quick bench docs reports clean verify-cache

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

run: $(VENV)/.installed
	RULESPEC_RULEBOOKS=$(RULEBOOKS) $(BIN)/rulespec check examples $(wildcard spec)
	@for f in $$(find examples $(wildcard spec) -name '*.rules' | sort); do \
	  echo; $(BIN)/rulespec simulate $$f --games $(GAMES) --seed 1 || exit $$?; done
	@echo
	$(MAKE) --no-print-directory reports
	$(MAKE) --no-print-directory docs

# Proofs and edition differences, for the rules reference: build/verify.json and build/diff-*.md.
# Exit code 1 (something violated, or a difference found) is a finding, not a failure.
reports: $(VENV)/.installed
	@mkdir -p build
	$(BIN)/rulespec verify $(VERIFY) --timeout $(TIMEOUT) --json > build/verify.json || test $$? -eq 1
	@for e in $(EDITIONS); do \
	  out=build/diff-de-$$(basename $$e .rules).md; \
	  $(BIN)/rulespec diff spec/sieben_weisen/de.rules $$e --timeout $(TIMEOUT) --markdown $$out || test $$? -eq 1 || exit $$?; \
	done

# The rules reference: pages for every shipped spec, then the site (site/index.html); the
# property statuses and edition differences from `make reports` where it has run.
docs: $(VENV)/.installed
	$(BIN)/rulespec docs --out docs/generated --games $(GAMES) --seed 1 \
	  $(addprefix --results ,$(wildcard build/verify.json)) $(addprefix --diff ,$(wildcard build/diff-*.md))
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet
	@echo "site built: site/index.html"

test: $(VENV)/.installed
	RULESPEC_RULEBOOKS=$(RULEBOOKS) $(BIN)/python -m pytest -q

quick: $(VENV)/.installed
	RULESPEC_RULEBOOKS=$(RULEBOOKS) $(BIN)/python -m pytest -q -m "not slow"

bench: $(VENV)/.installed
	$(BIN)/python benchmarks/simulate_bench.py
	$(BIN)/python benchmarks/wizard_bench.py
	$(BIN)/python benchmarks/fuzz_bench.py

# The prover's results that the cross-check tests read (tests/data/verify/): run after changing a
# shipped spec, a mutant (tests/mutants.py) or the prover. Takes about an hour.
verify-cache: $(VENV)/.installed
	$(BIN)/python tests/verify_cache.py all

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis site docs/generated
