"""Reliability of the whole pipeline: interruption and resume, rerun triggers and determinism
(every test here runs Snakemake; the checks that do not are in tests/test_robustness.py).

The pipeline runs in temporary directories on a small dataset served by a loopback HTTP mirror
(so the download stage is real).  A run is interrupted by SIGKILL to Snakemake's whole process
group at chosen points: while the raw file is half transferred, while a kernel HDF5 file is open
for writing, in the eigendecomposition, in a fit, and between two outputs of the table job.  To
hit those points deterministically, a ``sitecustomize`` module on PYTHONPATH (test-only, nothing
in src/) pauses the chosen job's stage there and drops a marker file; the test waits for the
marker and kills.  After each kill no file under results/ or data/ may be corrupt, and the final
resumed run must give exactly the tables of an uninterrupted run.
"""

from __future__ import annotations

import hashlib
import http.server
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import h5py
import numpy as np
import pandas as pd
import pytest
import yaml

from conftest import reversed_keys
from kreinbench.atomic import sha256_file
from kreinbench.data.split import read_split
from kreinbench.linalg import cache

pytestmark = pytest.mark.workflow  # kill-and-resume runs of Snakemake

ROOT = Path(__file__).resolve().parents[1]
TIMING = ["train_time", "test_time", "cv_time"]
TABLES = ["results/tables/accuracy.csv", "results/tables/accuracy.md", "results/records/runs.csv",
          "results/records/history.csv"]


# --- a loopback mirror serving one generated dataset -----------------------------------------

def toy_csv() -> bytes:
    """240 points in 4-D, two overlapping classes (label 1/0 in the last column)."""
    rng = np.random.default_rng(5)
    X = np.vstack([rng.normal(0.6, 1.0, size=(120, 4)), rng.normal(-0.6, 1.0, size=(120, 4))])
    y = np.repeat([1, 0], 120)
    return "".join(f"{','.join(f'{v:.6f}' for v in row)},{label}\n" for row, label in zip(X, y)).encode()


class _Mirror(http.server.BaseHTTPRequestHandler):
    """Serves ``body`` at /toy.csv.  While ``hold`` is set, a request sends half the bytes, sets
    ``half_sent`` and stalls (the client sees a transfer in progress)."""

    body = b""
    hold = threading.Event()
    half_sent = threading.Event()
    release = threading.Event()

    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path != "/toy.csv":
            self.send_error(404)
            return
        cls = type(self)
        self.send_response(200)
        self.send_header("Content-Length", str(len(cls.body)))
        self.end_headers()
        try:
            if cls.hold.is_set():
                cls.hold.clear()
                self.wfile.write(cls.body[: len(cls.body) // 2])
                self.wfile.flush()
                cls.half_sent.set()
                cls.release.wait(30)
                self.wfile.write(cls.body[len(cls.body) // 2:])
            else:
                self.wfile.write(cls.body)
        except (BrokenPipeError, ConnectionResetError):
            pass


@pytest.fixture(scope="module")
def mirror():
    _Mirror.body = toy_csv()
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Mirror)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    _Mirror.release.set()
    httpd.shutdown()
    httpd.server_close()


def make_config(mirror_url: str) -> dict:
    return {
        "seed": 11,
        "repetitions": 2,
        "cv_folds": 2,
        "datasets": ["toy"],
        "custom_datasets": {"toy": {
            "task": "binary",
            "source": {"type": "url", "files": [{
                "name": "toy.csv", "mirror": "toy.csv", "sha256": hashlib.sha256(toy_csv()).hexdigest(),
                "urls": [f"{mirror_url}/canonical/toy.csv"]}]},
            "parser": {"format": "delimited", "delimiter": ","},
            "label": {"column": -1, "positive": ["1"], "negative": ["0"]},
            "split": {"protocol": "random", "test_size": 0.5},
        }},
        "mirror": mirror_url,
        "kernels": {"tl1": {"type": "tl1", "tau_factor": 0.7}},
        "methods": {
            "iklr": {"estimator": "IKLR", "kernel": "tl1", "params": {"solver": "ccicp-gd"},
                     "grid": {"lam": [0.1, 1.0]}},
        },
    }


# --- running Snakemake ------------------------------------------------------------------------

# Imported by every Python process of a run (PYTHONPATH).  With KB_PAUSE=<rule>, the job of that
# rule (Snakemake names its script copy "tmpXXXX.<rule>.py") stops at the chosen point, leaves a
# marker in $KB_PAUSE_MARKERS and sleeps until killed.
SITECUSTOMIZE = textwrap.dedent('''
    import importlib.abc, importlib.util, os, sys, time

    RULE = os.environ.get("KB_PAUSE")
    POINTS = {  # rule: (module, attribute to wrap)
        "kernel": ("kreinbench.linalg.cache", "_encode"),            # inside h5py.File(tmp, "w"): datasets written, file open
        "spectrum": ("kreinbench.linalg.spectrum", "compute_spectrum"),  # the eigendecomposition
        "fit": ("kreinbench.methods.selection", "cross_validate"),    # model selection of a fit job
        "table": ("kreinbench.pipeline.stages.report", "accuracy_table"),  # runs.csv and history.csv already written
    }

    def _pause(*args, **kwargs):
        marker = os.path.join(os.environ["KB_PAUSE_MARKERS"], f"{RULE}-{os.getpid()}")
        with open(marker, "w") as handle:
            handle.write(sys.argv[0])
        time.sleep(300)
        raise SystemExit("pause hook was not killed")

    class _Hook(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if name != POINTS[RULE][0]:
                return None
            sys.meta_path.remove(self)
            spec = importlib.util.find_spec(name)
            run = spec.loader.exec_module

            def exec_module(module):
                run(module)
                setattr(module, POINTS[RULE][1], _pause)

            spec.loader.exec_module = exec_module
            return spec

    if RULE and sys.argv and sys.argv[0].endswith(f".{RULE}.py"):
        sys.meta_path.insert(0, _Hook())
''')


def snakemake_cmd(*args):
    return [sys.executable, "-m", "snakemake", "--cores", "2", *args]


def environment(hooks: Path | None = None, pause: str | None = None, markers: Path | None = None) -> dict:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    env.pop("KREINBENCH_MIRROR", None)
    if hooks is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(hooks), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    if pause:
        env["KB_PAUSE"], env["KB_PAUSE_MARKERS"] = pause, str(markers)
    return env


def run(workdir: Path, *args, timeout=300):
    return subprocess.run(snakemake_cmd(*args), cwd=workdir, capture_output=True, text=True, timeout=timeout,
                          env=environment())


def setup_workdir(workdir: Path, config: dict) -> Path:
    workdir.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "Snakefile", workdir)
    shutil.copytree(ROOT / "workflow", workdir / "workflow")
    (workdir / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    return workdir


def complete_run(workdir: Path) -> Path:
    result = run(workdir)
    assert result.returncode == 0, result.stderr[-3000:]
    return workdir


def start_and_kill(workdir: Path, ready, *args, env=None, what="") -> str:
    """Start Snakemake in its own process group, wait until ``ready()`` is true, SIGKILL the whole
    group and wait until no process of it is left.  Returns Snakemake's output so far."""
    log = workdir / "killed-run.log"
    with open(log, "w") as out:
        proc = subprocess.Popen(snakemake_cmd(*args), cwd=workdir, stdout=out, stderr=subprocess.STDOUT,
                                env=env, start_new_session=True)
        deadline = time.monotonic() + 90
        while not ready():
            if proc.poll() is not None:
                pytest.fail(f"run ended (code {proc.returncode}) before reaching {what}:\n{log.read_text()[-3000:]}")
            if time.monotonic() > deadline:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                pytest.fail(f"timed out waiting for {what}:\n{log.read_text()[-3000:]}")
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    for _ in range(200):  # every job process of the group is dead before anything else happens
        if not live_group_members(proc.pid):
            break
        time.sleep(0.025)
    else:
        pytest.fail(f"processes of the killed run survived ({what}): {live_group_members(proc.pid)}")
    return log.read_text()


def live_group_members(pgid: int) -> list[int]:
    """Processes of process group ``pgid`` that are not zombies (Linux /proc)."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            members.append(int(stat.parent.name))
    return members


# --- checks on a result tree ------------------------------------------------------------------

def check_hdf5_tree(workdir: Path) -> list[Path]:
    """Every .h5 under data/ and results/ opens with h5py and is what its attributes say it is:
    splits read back, kernels carry their instance and the sha256 of the split they came from,
    spectra the sha256 of the train matrix they decompose.  Returns the files checked."""
    files = sorted(p for top in ("data", "results") for p in (workdir / top).rglob("*.h5"))
    for path in files:
        with h5py.File(path, "r") as h5:
            assert len(h5.attrs) > 0 and len(h5.keys()) > 0, path
        rel = path.relative_to(workdir).parts
        if rel[:2] == ("data", "splits"):
            split = read_split(path)
            assert split.attrs["dataset"] == rel[2] and f"rep{split.attrs['rep']}.h5" == rel[3], path
        elif rel[:2] == ("results", "kernels"):
            K, K_test, attrs = cache.read_kernel(path, {"instance": path.stem})
            split_file = workdir / "data/splits" / rel[2] / f"{rel[3]}.h5"
            assert attrs["split_sha256"] == sha256_file(split_file), path
            assert K.shape[0] == K.shape[1] == K_test.shape[1] and np.all(np.isfinite(K)), path
        elif rel[:2] == ("results", "spectra"):
            mu, V, attrs = cache.read_spectrum(path, {"instance": path.stem})
            kernel_file = workdir / "results/kernels" / rel[2] / rel[3] / path.name
            assert attrs["kernel_train_sha256"] == cache.train_kernel_digest(kernel_file), path
            assert attrs["kind"] == "negative" and np.all(np.diff(mu) >= 0) and mu.size >= 1, path
            assert V is not None and V.shape == (K_rows(kernel_file), mu.size), path
        else:
            pytest.fail(f"unexpected HDF5 file {path}")
    return files


def K_rows(kernel_file: Path) -> int:
    with h5py.File(kernel_file, "r") as h5:
        return h5["K_train"].shape[0]


def temporaries(workdir: Path) -> list[Path]:
    return [p for top in ("data", "results", "logs") if (workdir / top).exists() for p in (workdir / top).rglob(".*.tmp")]


def runs_without_timing(workdir: Path) -> pd.DataFrame:
    runs = pd.read_csv(workdir / "results/records/runs.csv")
    assert set(TIMING) <= set(runs.columns)
    return runs.drop(columns=TIMING)


def history_without_timing(workdir: Path) -> pd.DataFrame:
    return pd.read_csv(workdir / "results/records/history.csv").drop(columns=["elapsed"])


def assert_same_results(a: Path, b: Path) -> None:
    assert (a / "results/tables/accuracy.csv").read_bytes() == (b / "results/tables/accuracy.csv").read_bytes()
    assert (a / "results/tables/accuracy.md").read_bytes() == (b / "results/tables/accuracy.md").read_bytes()
    pd.testing.assert_frame_equal(runs_without_timing(a), runs_without_timing(b), check_exact=True)
    pd.testing.assert_frame_equal(history_without_timing(a), history_without_timing(b), check_exact=True)
    for rel in ("results/kernels/toy/rep1/tl1.h5", "results/spectra/toy/rep2/tl1.h5"):
        with h5py.File(a / rel) as ha, h5py.File(b / rel) as hb:
            assert set(ha) == set(hb)
            for name in ha:
                np.testing.assert_array_equal(ha[name][()], hb[name][()], err_msg=f"{rel}:{name}")


# --- fixtures: a reference run, a twin in another directory, an interrupted-and-resumed run ----

@pytest.fixture(scope="module")
def reference(mirror, tmp_path_factory):
    return complete_run(setup_workdir(tmp_path_factory.mktemp("reference"), make_config(mirror)))


@pytest.fixture(scope="module")
def twin(mirror, tmp_path_factory):
    return complete_run(setup_workdir(tmp_path_factory.mktemp("twin"), make_config(mirror)))


@pytest.fixture(scope="module")
def interrupted(mirror, tmp_path_factory):
    """One directory, killed at five points in turn, each rerun resuming the last; returns the
    directory and what was seen right after each kill."""
    work = setup_workdir(tmp_path_factory.mktemp("interrupted"), make_config(mirror))
    # As in the repository: Snakemake loads profiles/default (rerun-incomplete) by itself, so the
    # plain commands below resume after each kill without --rerun-incomplete.
    (work / "profiles").symlink_to("workflow/profiles")
    hooks = tmp_path_factory.mktemp("hooks")
    (hooks / "sitecustomize.py").write_text(SITECUSTOMIZE)
    seen = {}

    # 1. During the download: the mirror has sent half of toy.csv and stalls.
    raw = work / "data/raw/toy"
    _Mirror.half_sent.clear()
    _Mirror.release.clear()
    _Mirror.hold.set()
    # (a fetch stages its files in data/raw/<dataset>/.fetching/ and moves them in when all arrived)
    start_and_kill(work, lambda: _Mirror.half_sent.is_set() and bool(list(raw.rglob(".toy.csv.*.tmp"))),
                   env=environment(), what="the download")
    _Mirror.release.set()
    seen["download"] = {"temporaries": [p.name for p in raw.rglob(".*.tmp")],
                        "files": sorted(p.name for p in raw.iterdir() if not p.name.startswith("."))}

    # 2-5. Paused stages.  A killed Snakemake leaves a stale lock; these restarts ignore it
    # (--nolock), the final one removes it with --unlock as a user would.
    # Each kill waits until every job of the stage (two repetitions, one table) sits at its pause
    # point: what exists then does not depend on the order in which the scheduler started them.
    for stage, jobs in (("kernel", 2), ("spectrum", 2), ("fit", 2), ("table", 1)):
        markers = tmp_path_factory.mktemp(f"markers-{stage}")
        start_and_kill(work, lambda: len(list(markers.iterdir())) >= jobs, "--nolock",
                       env=environment(hooks, stage, markers), what=f"the {stage} stage")
        seen[stage] = {
            "hdf5": check_hdf5_tree(work),
            "temporaries": temporaries(work),
            "kernels": sorted(p.name for p in (work / "results/kernels").rglob("*.h5")),
            "spectra": sorted(str(p.relative_to(work)) for p in (work / "results/spectra").rglob("*.h5"))
            if (work / "results/spectra").exists() else [],
            "fits": sorted(str(p.relative_to(work)) for p in (work / "results/fits").rglob("*.json"))
            if (work / "results/fits").exists() else [],
            "tables": [t for t in TABLES if (work / t).exists()],
        }

    unlocked = run(work, "--unlock")
    assert unlocked.returncode == 0, unlocked.stderr[-2000:]
    final = run(work)
    assert final.returncode == 0, final.stderr[-3000:]
    assert "Using workflow specific profile profiles/default" in final.stdout + final.stderr
    return work, seen


# --- interruption and resume -----------------------------------------------------------------

def test_kill_during_download_leaves_no_raw_file_and_no_manifest(interrupted):
    _, seen = interrupted
    assert seen["download"]["temporaries"], "the kill did not happen during the transfer"
    assert seen["download"]["files"] == []


def test_kill_during_kernel_write_leaves_only_a_temporary(interrupted):
    _, seen = interrupted
    kernel_tmp = [p for p in seen["kernel"]["temporaries"] if "results/kernels" in str(p)]
    assert kernel_tmp, "the kill did not happen while a kernel file was open for writing"
    assert all(p.name.startswith(".tl1.h5.pid") for p in kernel_tmp)
    assert seen["kernel"]["kernels"] == []  # the kernel being written is absent, not half there


def test_kill_during_spectrum_leaves_no_spectrum_of_the_killed_job(interrupted):
    _, seen = interrupted
    assert seen["spectrum"]["kernels"] == ["tl1.h5", "tl1.h5"]
    assert seen["spectrum"]["spectra"] == []


def test_kill_during_fit_and_table_leave_incomplete_results(interrupted):
    _, seen = interrupted
    assert len(seen["fit"]["spectra"]) == 2 and seen["fit"]["fits"] == []
    assert len(seen["table"]["fits"]) == 2
    # The table job was killed between its outputs: runs.csv and history.csv written, the
    # accuracy table not; Snakemake must not take the job for complete.
    assert seen["table"]["tables"] == ["results/records/runs.csv", "results/records/history.csv"]


def test_no_hdf5_file_was_ever_corrupt(interrupted):
    _, seen = interrupted
    # check_hdf5_tree ran after every kill (raising on any unreadable or inconsistent file): the
    # two splits, then + two kernels, then + two spectra were there, complete.
    assert [len(seen[s]["hdf5"]) for s in ("kernel", "spectrum", "fit", "table")] == [2, 4, 6, 6]


def test_resumed_run_equals_an_uninterrupted_one(interrupted, reference):
    work, _ = interrupted
    assert_same_results(work, reference)
    assert len(check_hdf5_tree(work)) == 6  # 2 splits, 2 kernels, 2 spectra
    assert (work / "data/raw/toy/toy.csv").read_bytes() == toy_csv()


def test_resume_leaves_no_temporary_files_and_nothing_to_do(interrupted):
    work, _ = interrupted
    assert temporaries(work) == []
    result = run(work, "-n")
    assert result.returncode == 0 and "Nothing to be done" in result.stdout + result.stderr


# --- determinism ------------------------------------------------------------------------------

def test_two_runs_in_two_directories_are_bit_identical(reference, twin):
    assert reference != twin
    assert_same_results(reference, twin)
    for rel in ("data/splits/toy/rep1.h5", "data/splits/toy/rep2.h5"):
        a, b = read_split(reference / rel), read_split(twin / rel)
        np.testing.assert_array_equal(a.train_index, b.train_index)
        np.testing.assert_array_equal(a.X_train, b.X_train)


def test_repetitions_have_different_seeds_and_splits(reference):
    rep1, rep2 = read_split(reference / "data/splits/toy/rep1.h5"), read_split(reference / "data/splits/toy/rep2.h5")
    assert int(rep1.attrs["seed"]) != int(rep2.attrs["seed"])
    assert set(rep1.train_index.tolist()) != set(rep2.train_index.tolist())
    assert rep1.y_train.size == rep2.y_train.size == 120
    runs = pd.read_csv(reference / "results/records/runs.csv")
    assert runs.groupby("rep")["split_seed"].nunique().eq(1).all() and runs["split_seed"].nunique() == 2


# --- rerun triggers ---------------------------------------------------------------------------

@contextmanager
def config_written(workdir: Path, config: dict):
    """``config`` is the workdir's config.yaml inside the block (the original is restored after),
    formatted unlike the original (flow style, a comment, no blank lines): formatting is no change."""
    path = workdir / "config.yaml"
    original = path.read_text()
    path.write_text("# edited\n" + yaml.safe_dump(config, sort_keys=False, default_flow_style=True, width=60))
    try:
        yield
    finally:
        path.write_text(original)


def dry_run_jobs(workdir: Path, config: dict) -> dict[str, int]:
    """Jobs ``snakemake -n`` would run with ``config`` written to config.yaml."""
    with config_written(workdir, config):
        result = run(workdir, "-n")
    assert result.returncode == 0, result.stderr[-3000:]
    text = result.stdout + result.stderr
    if "Nothing to be done" in text:
        return {}
    stats = text.split("Job stats:", 1)[1].split("\n\n", 1)[0].splitlines()[3:]
    jobs = dict((line.split()[0], int(line.split()[1])) for line in stats if line.strip())
    jobs.pop("total")
    assert "Params have changed since last execution" in text
    return jobs


def labelled_config(mirror_url: str) -> dict:
    """The toy config plus what the twin's lacks: a method label, shown by the table and the
    convergence figure, and fixed params and a grid of two keys each, whose order must not matter."""
    config = {**make_config(mirror_url), "repetitions": 1}
    config["methods"]["iklr"] = {"label": "IKLR (TL1)", "estimator": "IKLR", "kernel": "tl1",
                                 "params": {"solver": "ccicp-gd", "max_inner": 10000},
                                 "grid": {"lam": [0.1, 1.0], "init": ["zeros"]}}
    config["figures"] = {"convergence": {"dataset": "toy", "methods": ["iklr"]}}
    return config


@pytest.fixture(scope="module")
def labelled(mirror, tmp_path_factory):
    return complete_run(setup_workdir(tmp_path_factory.mktemp("labelled"), labelled_config(mirror)))


def fit_mtimes(workdir: Path) -> dict[Path, int]:
    return {p: p.stat().st_mtime_ns for p in (workdir / "results/fits").rglob("*.json")}


def test_rerun_only_when_parameters_change(twin, mirror):
    config = make_config(mirror)
    assert dry_run_jobs(twin, config) == {}
    changed_grid = make_config(mirror)
    changed_grid["methods"]["iklr"]["grid"]["lam"] = [0.1, 2.0]
    assert dry_run_jobs(twin, changed_grid) == {"fit": 2, "table": 1, "table_html": 1, "headline": 1, "all": 1}
    changed_kernel = make_config(mirror)
    changed_kernel["kernels"]["tl1"]["tau_factor"] = 0.8
    assert dry_run_jobs(twin, changed_kernel) == {"kernel_tl1": 2, "spectrum": 2, "fit": 2, "table": 1, "table_html": 1, "headline": 1, "all": 1}
    changed_seed = make_config(mirror)
    changed_seed["seed"] = 12
    assert dry_run_jobs(twin, changed_seed) == {"split": 2, "kernel_tl1": 2, "spectrum": 2, "fit": 2, "table": 1, "table_html": 1, "headline": 1, "all": 1}


def test_label_change_reruns_only_table_and_figure(labelled, mirror):
    assert "| IKLR (TL1) |" in (labelled / "results/tables/accuracy.md").read_text()
    relabelled = labelled_config(mirror)
    relabelled["methods"]["iklr"]["label"] = "IKLR renamed"
    assert dry_run_jobs(labelled, relabelled) == {"table": 1, "table_html": 1, "headline": 1, "figure": 1, "all": 1}
    fits = fit_mtimes(labelled)
    try:
        with config_written(labelled, relabelled):
            complete_run(labelled)
        assert "| IKLR renamed |" in (labelled / "results/tables/accuracy.md").read_text()
        assert set(pd.read_csv(labelled / "results/records/runs.csv")["label"]) == {"IKLR renamed"}
        assert fit_mtimes(labelled) == fits
    finally:
        complete_run(labelled)  # back to the fixture's labels for the other tests


def test_naming_a_methods_datasets_reruns_no_fit(labelled, mirror):
    """A method's ``datasets`` say which fit jobs exist, not what one computes: listing them (as a
    config's offline stand-in renames one of them) reruns no fit of the others."""
    listed = labelled_config(mirror)
    listed["methods"]["iklr"]["datasets"] = ["toy"]
    jobs = dry_run_jobs(labelled, listed)
    assert "fit" not in jobs and "split" not in jobs, jobs


def test_reordering_config_keys_reruns_nothing(labelled, mirror):
    assert dry_run_jobs(labelled, reversed_keys(labelled_config(mirror))) == {}


def test_grid_change_reruns_fits_whatever_the_key_order(labelled, mirror):
    changed = reversed_keys(labelled_config(mirror))
    changed["methods"]["iklr"]["grid"]["lam"] = [0.1, 2.0]
    assert dry_run_jobs(labelled, changed) == {"fit": 1, "table": 1, "table_html": 1, "headline": 1, "figure": 1,
                                               "all": 1}
