"""Cluster resources of a workflow job (``mem_mb``, ``runtime``, ``threads``) from the job's size.

The size is read from files: the dataset × repetition's split (n training points, m test points,
d features) for the kernel, spectrum and fit jobs, the raw files' sizes in the fetch manifest for
split jobs — so it is exact for every dataset and subsample. Snakemake evaluates resources while
building the DAG, when those files may not exist yet (then the floors below apply; dry runs show
them), and again right before it submits a job. A group job (the SLURM profile groups a
dataset × repetition's kernels, spectra and fits) is submitted once its split exists, so every
member is sized from it, even those whose own inputs the group makes.

Cost model (float64; n training points, m test points, d features, k CV folds). Memory is
what a job holds beyond :data:`BASE_MB`; times are single-threaded, with constants measured on a
2-core Debian 12 machine (kernel 0.4–0.7 ns per pair and feature, ``eigh`` 0.24 ns·n³, one fit
of KLR / SpectrumKLR / IKLR-CCICP 0.2–0.56 ns·n³), rounded up:

- fetch, table, figure: nothing beyond the base; the runtime floor.
- split: :data:`PARSE_COPIES` × the raw files' bytes (text parsed into floats, then scaled).
- kernel: K_train and K_test, 8·(n² + m·n) bytes, plus the row blocks' temporaries (at most
  :data:`KERNEL_BLOCK_BYTES`); :data:`KERNEL_NS` ns × n·(n + m)·d for each of the config kernel's
  instances (a job computes them one after another).
- spectrum: :data:`SPECTRUM_COPIES` × 8n² (K, the eigenvectors, LAPACK syevd's 2n² workspace,
  the copy written); :data:`EIGH_NS` ns × n³.
- fit: every grid instance's K_train and K_test at once, plus :data:`FIT_COPIES` × 8n² (a CV
  fold's sub-kernels, the estimator's eigendecomposition and work arrays, the best instance's
  spectrum); :data:`FIT_NS` ns × n_fit³ for each candidate on each fold (n_fit = (k−1)/k·n)
  and one final fit (n_fit = n).
- kernel and fit on an implicit kernel (``storage: implicit``, :mod:`kreinbench.linalg.implicit_kernel`):
  the kernel job writes parameters only (nothing beyond the base); a fit holds libsvm's row cache
  (:data:`LIBSVM_CACHE_MB`), :data:`IMPLICIT_BLOCKS` kernel blocks and, for partitioned DANK,
  :data:`FIT_COPIES` × 8c² for its largest cluster (c = :data:`CLUSTER_IMBALANCE` × n / v, at most
  n), and takes :data:`KERNEL_NS` ns × d × (:data:`IMPLICIT_PASSES` × n² + m·n): libsvm computes
  kernel rows as it needs them, a few passes over the training set, and scores each test point.
- fit_batch (a dataset × repetition's fits one after another): the largest fit's memory, the sum
  of the fits' times.
- scale_point (one point of the scale study, n from its wildcard): an exact method holds
  :data:`SCALE_EXACT_COPIES` × 8n² (the kernel and the solver's n × n work arrays) and takes
  :data:`SCALE_EXACT_NS` ns × n³; Nyström IKLR holds :data:`SCALE_NYSTROM_COPIES` × 8·n·m
  (K_nm, the features, the solver's products) and takes :data:`SCALE_NYSTROM_NS` ns × n·m²
  per outer step, :data:`SCALE_NYSTROM_STEPS` of them; both score the test rows in blocks.

A runtime request is :data:`RUNTIME_SAFETY` × the modelled time (slower or shared cluster
cores; no speed-up from threads is assumed), at least :data:`RUNTIME_FLOOR_MIN` minutes.
tests/test_resources.py checks the memory model against the peak RSS of the real stages.

:data:`BASE_MB` is the resident memory of the job's two Python processes (Snakemake's job step
and the stage script with numpy, scipy, scikit-learn, h5py): 115 MB + 175 MB measured, rounded
up. A retry doubles the memory and adds the base runtime again (``attempt`` 1, 2, 3, ...), so a
job killed by SLURM for exceeding its memory or time limit gets more on its next attempt.

Priority (Snakemake's ``priority``): the stages that open a dataset's chain, fetch, split, kernel and
spectrum, run before any fit that is ready, each stage before the next (:data:`STAGE_PRIORITY`).
Snakemake's greedy scheduler otherwise prefers the ready jobs with the largest inputs, so a fetch
(no input) waited behind the splits, kernels and fits of the datasets already open: in the whole
paper-iklr run at b58a29e (2 cores) the last eleven datasets were fetched 41 to 54 minutes in, and
Table VI's long CVs, fetched at minute 41, ran last, one at a time. With every chain open within
minutes, the fits start largest input (kernel) first, so the long ones are not the last: where
they run on one thread each, a long job left alone at the end would leave a core idle. (It did not
shorten paper-iklr on 2 cores: both there and at b58a29e the jobs held both cores every minute,
docs/protocol-speed.md.)

Threads: the BLAS-heavy rules (spectrum, fit) get one thread per :data:`N_PER_THREAD` training
points, at most :data:`MAX_THREADS`; the stage sets the BLAS thread count to the job's threads
(``kreinbench.pipeline.stages.runner``), so the cores SLURM allocates are the cores BLAS uses.
Below 4000 points a second thread costs more than it gives: Table VI's CV job on svmguide1's
provided split (3089 points, 2 cores, idle machine) took 177.8 s on two threads, 272.3 s on one,
and two of them side by side on one thread each 269.8 s, 1.32 times the throughput of running
them one after another on two threads (measured at b58a29e). On a cluster it is the same
trade: cores that a job's second thread would waste go to another job.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping

import h5py

from kreinbench.errors import KreinbenchError
from kreinbench.methods.solvers.libsvm import LIBSVM_CACHE_MB
from kreinbench.pipeline.paths import split_path
from kreinbench.pipeline.plan import batch_methods, kernel_instances
from kreinbench.pipeline.plan_scale import parse_variant

MB = 2**20
BASE_MB = 512
PARSE_COPIES = 10
SPECTRUM_COPIES = 5
FIT_COPIES = 9
KERNEL_BLOCK_BYTES = 3 * 32 * MB
KERNEL_NS = 0.7
EIGH_NS = 0.25
FIT_NS = 0.6
RUNTIME_SAFETY = 4.0
RUNTIME_FLOOR_MIN = 10
N_PER_THREAD = 4000
MAX_THREADS = 8
IMPLICIT_BLOCKS = 4
IMPLICIT_PASSES = 10
CLUSTER_IMBALANCE = 4
SCALE_EXACT_COPIES = 4
SCALE_EXACT_NS = 0.6
SCALE_NYSTROM_COPIES = 6
SCALE_NYSTROM_NS = 1.0
SCALE_NYSTROM_STEPS = 50
STAGE_PRIORITY = {"fetch": 4, "split": 3, "kernel": 2, "spectrum": 1}


@dataclass(frozen=True)
class Size:
    """Size of one dataset × repetition: training points, test points, features."""

    n_train: int
    n_test: int
    n_features: int


@dataclass(frozen=True)
class Cost:
    """Modelled peak memory (bytes beyond :data:`BASE_MB`) and single-thread seconds of a job."""

    memory: float
    seconds: float


def split_size(path: str | Path) -> Size | None:
    """The size of a split file's data (array shapes only, nothing loaded); None if it does not exist yet."""
    if not Path(path).exists():
        return None
    with h5py.File(path, "r") as h5:
        n_train, n_features = h5["X_train"].shape
        return Size(n_train=n_train, n_test=h5["X_test"].shape[0], n_features=n_features)


def raw_bytes(manifest: str | Path) -> int | None:
    """Total size of a dataset's raw files from its fetch manifest; None if it does not exist yet."""
    if not Path(manifest).exists():
        return None
    return sum(entry["size"] for entry in json.loads(Path(manifest).read_text())["files"])


def kernel_cost(size: Size, instances: int = 1) -> Cost:
    """A kernel job: ``instances`` kernels computed one after another (one held at a time)."""
    n, m, d = size.n_train, size.n_test, size.n_features
    output = 8.0 * (n * n + m * n)
    # Below the block size the temporaries are one block of the whole output.
    return Cost(memory=output + min(KERNEL_BLOCK_BYTES, output), seconds=instances * KERNEL_NS * 1e-9 * n * (n + m) * d)


def spectrum_cost(size: Size) -> Cost:
    n = size.n_train
    return Cost(memory=8.0 * SPECTRUM_COPIES * n * n, seconds=EIGH_NS * 1e-9 * n**3)


def fit_cost(size: Size, *, instances: int, candidates: int, folds: int) -> Cost:
    """A fit job: ``instances`` kernel files held at once, ``candidates`` (instance × grid point)
    each cross-validated on ``folds`` folds, then one final fit."""
    n, m = size.n_train, size.n_test
    memory = 8.0 * (instances * (n * n + m * n) + FIT_COPIES * n * n)
    fits = candidates * folds * ((folds - 1) / folds) ** 3 + 1
    return Cost(memory=memory, seconds=FIT_NS * 1e-9 * n**3 * fits)


def implicit_fit_cost(size: Size, n_clusters: int | None) -> Cost:
    """A fit on an implicit kernel: libsvm's cache, a few kernel blocks, the largest cluster's block."""
    n, m, d = size.n_train, size.n_test, size.n_features
    cluster = 0 if n_clusters is None else min(n, CLUSTER_IMBALANCE * n / n_clusters)
    memory = LIBSVM_CACHE_MB * MB + IMPLICIT_BLOCKS * KERNEL_BLOCK_BYTES + 8.0 * FIT_COPIES * cluster**2
    return Cost(memory=memory, seconds=KERNEL_NS * 1e-9 * d * (IMPLICIT_PASSES * n * n + m * n))


def scale_point_cost(size: Size, m: int | None) -> Cost:
    """One point of the scale study on ``size.n_train`` rows: exact (``m`` None) or Nyström with ``m`` landmarks."""
    n = size.n_train
    test_blocks = float(KERNEL_BLOCK_BYTES)
    if m is None:
        return Cost(memory=8.0 * SCALE_EXACT_COPIES * n * n + test_blocks, seconds=SCALE_EXACT_NS * 1e-9 * n**3)
    return Cost(memory=8.0 * SCALE_NYSTROM_COPIES * n * m + 8.0 * m * m + test_blocks,
                seconds=SCALE_NYSTROM_STEPS * SCALE_NYSTROM_NS * 1e-9 * n * m * m)


def parse_cost(n_bytes: int) -> Cost:
    return Cost(memory=float(PARSE_COPIES * n_bytes), seconds=0.0)


def mem_mb(cost: Cost | None, attempt: int) -> int:
    """Memory request in MB: base + modelled peak, doubled on every retry."""
    need = BASE_MB + (cost.memory / MB if cost else 0.0)
    return int(math.ceil(need * 2 ** (attempt - 1)))


def runtime_min(cost: Cost | None, attempt: int) -> int:
    """Runtime request in minutes: the modelled time with a safety factor, at least the floor,
    times the attempt number."""
    minutes = RUNTIME_SAFETY * (cost.seconds if cost else 0.0) / 60.0
    return int(math.ceil(max(RUNTIME_FLOOR_MIN, minutes) * attempt))


def blas_threads(size: Size | None) -> int:
    """BLAS threads for an O(n³) job: one per :data:`N_PER_THREAD` training points, 1..MAX_THREADS."""
    if size is None:
        return 1
    return max(1, min(MAX_THREADS, math.ceil(size.n_train / N_PER_THREAD)))


# $NAME or ${NAME}, as os.path.expandvars reads them in Snakemake's resource values.
ENV_REFERENCE = re.compile(r"\$(?:(\w+)|\{(\w+)\})")


def check_resource_variables(raw_resources: Mapping[str, object], environ: Mapping[str, str]) -> None:
    """Refuse resource values that name an environment variable which is unset or empty.

    Snakemake expands ``$VARIABLES`` in a profile's resource values when it evaluates them and
    leaves an unset one as it is written, so the SLURM profile's ``slurm_partition:
    "'${KREINBENCH_SLURM_PARTITION}'"`` would otherwise reach every job as that literal text (an
    empty variable: as an empty partition), in a dry run without any error."""
    for name, raw in raw_resources.items():
        for match in ENV_REFERENCE.finditer(raw if isinstance(raw, str) else ""):
            variable = match.group(1) or match.group(2)
            if not environ.get(variable):
                state = "empty" if variable in environ else "not set"
                raise KreinbenchError(
                    f"environment variable {variable} is {state}; the resource {name} = {raw} needs it "
                    f"(export {variable}=<value>, see README 'Running on a cluster')")


def _grid_points(method_spec: dict) -> int:
    return math.prod(len(values) if isinstance(values, list) else 1 for values in method_spec.get("grid", {}).values())


class JobResources:
    """Snakemake resource callables of every rule for one config.

    ``mem_mb(rule)``, ``runtime(rule)`` and ``threads(rule)`` return functions of
    ``(wildcards, input, attempt)`` (threads: ``(wildcards)``), the names Snakemake passes
    arguments by, e.g. ``resources: mem_mb=job_resources.mem_mb("kernel")``. Paths are relative
    to the working directory, where Snakemake evaluates them.
    """

    RULES = ("fetch", "split", "kernel", "spectrum", "fit", "fit_batch", "scale_point", "table", "figure")
    BLAS_RULES = ("spectrum", "fit", "fit_batch", "scale_point")

    def __init__(self, config: dict):
        self.config = config

    @staticmethod
    def size(wildcards) -> Size | None:
        """The size of the job's dataset × repetition, from its split file (a scale point: n_train
        from its wildcard, the rest from the first repetition's split, 0 until that exists: a
        point's cost depends on n_train and m only, so a dry run shows it before any job runs)."""
        if hasattr(wildcards, "n_train"):
            size = split_size(split_path(wildcards.dataset, 1)) or Size(0, 0, 0)
            return Size(int(wildcards.n_train), size.n_test, size.n_features)
        return split_size(split_path(wildcards.dataset, int(wildcards.rep)))

    def cost(self, rule: str, wildcards, input, instances: int = 1, kernel: str | None = None) -> Cost | None:
        """The modelled cost of one job, or None while its size is unknown (files not yet made);
        ``instances``: the kernel instances a kernel job computes, ``kernel``: its config kernel."""
        if rule not in self.RULES:
            raise ValueError(f"no cost model for rule {rule!r}; known: {', '.join(self.RULES)}")
        if rule == "split":
            n_bytes = raw_bytes(input.manifest)
            return None if n_bytes is None else parse_cost(n_bytes)
        size = self.size(wildcards) if rule in ("kernel", "spectrum", "fit", "fit_batch", "scale_point") else None
        if size is None:
            return None
        if rule == "scale_point":
            return scale_point_cost(size, parse_variant(wildcards.variant)[1])
        if rule == "kernel":
            return Cost(0.0, 0.0) if self._implicit(kernel) else kernel_cost(size, instances)
        if rule == "spectrum":
            return spectrum_cost(size)
        if rule == "fit":
            return self.method_cost(size, wildcards.method)
        if rule == "fit_batch":
            # The batch's fits run one after another: the largest one's memory, the sum of times.
            costs = [self.method_cost(size, method) for method in batch_methods(self.config, wildcards.dataset)]
            return Cost(memory=max(c.memory for c in costs), seconds=sum(c.seconds for c in costs))
        return None

    def method_cost(self, size: Size, method: str) -> Cost:
        """One fit of ``method``: every instance of its kernel's grid held, each candidate cross-validated."""
        spec = self.config["methods"][method]
        if self._implicit(spec["kernel"]):
            return implicit_fit_cost(size, spec.get("params", {}).get("n_clusters"))
        instances = len(kernel_instances(self.config, spec["kernel"]))
        return fit_cost(size, instances=instances, candidates=instances * _grid_points(spec),
                        folds=int(self.config["cv_folds"]))

    def _implicit(self, kernel: str | None) -> bool:
        return kernel is not None and self.config["kernels"][kernel].get("storage") == "implicit"

    def mem_mb(self, rule: str, kernel: str | None = None) -> Callable[..., int]:
        def mem(wildcards, input, attempt):
            return mem_mb(self.cost(rule, wildcards, input, kernel=kernel), attempt)
        return mem

    def runtime(self, rule: str, instances: int = 1, kernel: str | None = None) -> Callable[..., int]:
        def runtime(wildcards, input, attempt):
            return runtime_min(self.cost(rule, wildcards, input, instances, kernel), attempt)
        return runtime

    @staticmethod
    def priority(rule: str) -> int:
        """The rule's scheduling priority (:data:`STAGE_PRIORITY`; every other rule 0)."""
        return STAGE_PRIORITY.get(rule, 0)

    def threads(self, rule: str) -> Callable[..., int]:
        def threads(wildcards):
            return blas_threads(self.size(wildcards)) if rule in self.BLAS_RULES else 1
        return threads

    def method_gpus(self, method: str) -> int:
        """1 where the method's fits run on a GPU (``array_api`` on a ``cuda`` device, or CuPy), else 0."""
        array_api = self.config["methods"][method].get("array_api") or {}
        on_gpu = array_api.get("namespace") == "cupy" or str(array_api.get("device", "")).startswith("cuda")
        return int(bool(array_api) and on_gpu)

    def gpus(self, rule: str) -> Callable[..., int]:
        """The resource ``gpu`` of a fit or fit-batch job (the SLURM profile's executor turns 1 into
        ``sbatch --gpus=1``; 0 asks for none)."""
        def gpus(wildcards):
            if rule == "fit":
                return self.method_gpus(wildcards.method)
            if rule == "fit_batch":
                return max((self.method_gpus(m) for m in batch_methods(self.config, wildcards.dataset)), default=0)
            return 0
        return gpus
