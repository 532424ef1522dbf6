# The two set-up commands of the README's Quickstart. Each creates .venv if needed.
PY ?= python3
VENV ?= .venv
BIN = $(VENV)/bin

.PHONY: site test lint bench clean

$(BIN)/driftboard: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[test,inspect]"
	touch $@

## Main job: verify every shipped submission, then build the static site into build/site.
site: $(BIN)/driftboard
	$(BIN)/driftboard verify submissions/
	$(BIN)/driftboard build --no-verify --out build/site

## Tests, lint and type checks (what CI runs).
test: $(BIN)/driftboard
	$(BIN)/zizmor --offline .github/workflows/
	$(BIN)/check-jsonschema --builtin-schema vendor.github-workflows .github/workflows/*.yml
	$(BIN)/ruff check checker driftboard tests examples
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/python -m pytest

lint: $(BIN)/driftboard
	$(BIN)/ruff check checker driftboard tests examples
	$(BIN)/mypy
	$(BIN)/lint-imports

bench: $(BIN)/driftboard
	$(BIN)/driftboard bench validate

clean:
	rm -rf build
