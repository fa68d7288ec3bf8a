# Two commands set up everything: `make run` and `make test` (see README.md).
# Both create .venv on first use and install the tested versions into it.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# Pins for `pip install -c` (CONSTRAINTS= installs the newest releases; `make versions` covers the other environments).
CONSTRAINTS ?= constraints.txt
# empty: each notebook's own default device (the CPU for the lessons); or auto, cpu, cuda, mps
DEVICE ?=
# Stamp file: reinstall only when the requirements or the pins change.
INSTALLED := $(VENV)/.installed

.PHONY: install run test lab sync execute practice site versions lock clean

install: $(INSTALLED)

$(INSTALLED): requirements.txt $(CONSTRAINTS)
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else "the course needs Python 3.10 or newer; found " + sys.version.split()[0] + " (set PYTHON=python3.x)")'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade --disable-pip-version-check -r requirements.txt $(if $(CONSTRAINTS),-c $(CONSTRAINTS))
	@touch $@

run: $(INSTALLED)
	$(BIN)/python -m tools.run $(if $(DEVICE),--device $(DEVICE))

test: $(INSTALLED)
	$(BIN)/python -m pytest

lab: $(INSTALLED)
	$(BIN)/jupyter lab notebooks

sync: $(INSTALLED)
	$(BIN)/python -m tools.sync

execute: $(INSTALLED)
	$(BIN)/python -m tools.run --in-place
	$(BIN)/python -m tools.sync  # carry the fresh outputs into the Chinese edition, notebooks/zh/

# Practice copies in build/practice/: outputs cleared, exercise answers replaced by stubs.
practice: $(INSTALLED)
	$(BIN)/python -m tools.practice

# The executed notebooks (every edition) as a static, offline web site in build/site/.
site: $(INSTALLED)
	$(BIN)/python -m tools.website

# Every notebook in another environment: ENVIRONMENT=pinned, oldest, colab or newest
# (its own venv in build/versions/; see tools/versions.py).
ENVIRONMENT ?= pinned
versions: $(INSTALLED)
	$(BIN)/python -m tools.versions $(ENVIRONMENT)

# Resolve the pins for every supported Python at once (uv's universal resolver),
# holding torch at the tested release.
lock: $(INSTALLED)
	$(BIN)/python -m pip install --quiet uv
	mkdir -p build
	echo "torch==2.13.0" > build/torch-pin.txt
	$(BIN)/python -m uv pip compile requirements.txt -c build/torch-pin.txt --universal \
	    --python-version 3.10 --no-header --quiet -o build/constraints.body.txt
	{ sed -n '1,3p' constraints.txt; cat build/constraints.body.txt; } > constraints.txt.new
	mv constraints.txt.new constraints.txt

clean:
	rm -rf build .pytest_cache .ruff_cache
	find . -name __pycache__ -not -path './$(VENV)/*' -prune -exec rm -rf {} +
