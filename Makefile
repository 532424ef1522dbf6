# The two set-up commands of the README's Quickstart. Each creates .venv if needed.
PY ?= python3
VENV ?= .venv
BIN = $(VENV)/bin

.PHONY: site test lint bench clean

# Each step says what it does first: the install takes a minute or two, and pip shows its progress.
# Two installs: `make site` needs only what verify and build need (driftboard alone); `make test`, `lint`
# and `bench` install everything (the test and inspect extras, and the developer tools in tools/).
SITE_STAMP = $(VENV)/.driftboard-site
ALL_STAMP = $(VENV)/.driftboard-all

$(VENV)/bin/pip:
	@echo "==> creating the virtual environment $(VENV) (once)"
	$(PY) -m venv $(VENV)
	@echo "==> upgrading pip in $(VENV)"
	$(BIN)/pip install --upgrade pip

$(SITE_STAMP): pyproject.toml | $(VENV)/bin/pip
	@echo "==> installing driftboard alone (what verify and build need) into $(VENV) (about a minute)"
	$(BIN)/pip install -e .
	touch $@

$(ALL_STAMP): pyproject.toml tools/pyproject.toml | $(VENV)/bin/pip
	@echo "==> installing driftboard with the test and inspect extras, and the developer tools (tools/), into $(VENV) (a minute or two)"
	$(BIN)/pip install -e ".[test,inspect]" -e tools/
	touch $@ $(SITE_STAMP)

## Main job: verify every shipped submission, then build the static site into build/site.
site: $(SITE_STAMP)
	@echo "==> verifying every submission in submissions/ (results into build/results, cached)"
	$(BIN)/driftboard verify submissions/
	@echo "==> building the static site from build/results into build/site"
	$(BIN)/driftboard build --no-verify --out build/site

## Tests, lint and type checks (what CI runs).
test: $(ALL_STAMP)
	@echo "==> workflow lint, ruff, mypy, import contracts, then the test suite"
	$(BIN)/zizmor --offline .github/workflows/
	$(BIN)/check-jsonschema --builtin-schema vendor.github-workflows .github/workflows/*.yml
	$(BIN)/ruff check checker driftboard tools tests examples
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -n auto --dist loadfile

lint: $(ALL_STAMP)
	$(BIN)/ruff check checker driftboard tools tests examples
	$(BIN)/mypy
	$(BIN)/lint-imports

bench: $(ALL_STAMP)
	$(BIN)/driftboard bench validate

clean:
	rm -rf build
