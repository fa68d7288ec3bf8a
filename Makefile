# One-line wrappers of course.py, for those whose habit is make: `make run` is `python3 course.py run`.
# course.py creates .venv on first use and installs the tested versions into it (see README.md).

ifeq ($(OS),Windows_NT)
PYTHON ?= py -3
else
PYTHON ?= python3
endif
VENV ?= .venv
# Pins for pip (CONSTRAINTS= installs the newest releases; `make versions` covers the other environments).
CONSTRAINTS ?= constraints.txt
# empty: each notebook's own default device (the CPU for the lessons); or auto, cpu, cuda, mps
DEVICE ?=
# more arguments for the command: make lab ARGS="--port 8899 --no-browser", make test ARGS="tests/unit"
ARGS ?=
# every notebook in another environment: pinned, oldest, colab or newest (noxfile.py)
ENVIRONMENT ?= pinned

COURSE = $(PYTHON) course.py --venv "$(VENV)" --constraints "$(CONSTRAINTS)"

.PHONY: install run test lab sync execute practice site check versions lock clean

install: ; $(COURSE) install --dev
run: ; $(COURSE) run $(ARGS)
test: ; $(COURSE) test $(ARGS)
lab: ; $(COURSE) lab $(ARGS)
sync: ; $(COURSE) sync $(ARGS)
execute: ; $(COURSE) execute $(ARGS)
practice: ; $(COURSE) practice $(ARGS)
site: ; $(COURSE) site $(ARGS)
check: ; $(COURSE) check $(ARGS)
versions: ; $(COURSE) versions $(ENVIRONMENT) $(ARGS)
lock: ; $(COURSE) lock
clean: ; $(COURSE) clean
