# Two entry points for a fresh machine: `make run` and `make test`.
# Both create .venv on first use and (re)install the package whenever pyproject.toml changes.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
STAMP := $(VENV)/.installed
CORES ?= all

.PHONY: run test install clean

$(STAMP): pyproject.toml
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --upgrade pip
	$(VENV)/bin/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(VENV)/bin/snakemake --profile workflow/profiles/default --cores $(CORES)

test: $(STAMP)
	$(VENV)/bin/python -m pytest

clean:
	rm -rf results figures/*.png figures/*.pdf .snakemake logs
