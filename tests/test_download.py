"""The real download code against a loopback HTTP server over ../shared/datasets.

The raw copies are never copied into the repository: the server reads them where they are, beside
the clone (CI has them at ../shared/datasets too, so their absence is a failure, not a skip).
"""

import functools
import http.server
import json
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from kreinbench.data import download
from kreinbench.data.download import MIRROR_ENV, DownloadPolicy, download_file
from kreinbench.data.fetch import fetch_dataset, read_manifest
from kreinbench.data.parse import parse_dataset
from kreinbench.data.registry import dataset_entry, get_dataset, load_registry, spec_from_entry
from kreinbench.data.split import read_split, split_dataset
from kreinbench.errors import DataError, KreinbenchError
from kreinbench.pipeline import plan

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "datasets"
FAST = DownloadPolicy(timeout=5.0, attempts=2, backoff=0.05)


class _Handler(http.server.SimpleHTTPRequestHandler):
    """Static files, plus /slow/<path> (answers after 2 s) and /truncated/<path> (announces more
    bytes than it sends, then closes), counting requests per path."""

    hits: dict = {}

    def log_message(self, *args):
        pass

    def do_GET(self):
        type(self).hits[self.path] = type(self).hits.get(self.path, 0) + 1
        if self.path.startswith("/slow/"):
            time.sleep(2.0)
            self.path = self.path[len("/slow"):]
        if self.path.startswith("/truncated/"):
            body = (Path(self.directory) / self.path[len("/truncated/"):]).read_bytes()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body) + 1000))
            self.end_headers()
            self.wfile.write(body[: len(body) // 2])
            self.close_connection = True
            return
        super().do_GET()


@pytest.fixture(scope="module")
def server():
    assert (SHARED / "MANIFEST.tsv").is_file(), (
        f"the raw dataset copies are missing: expected {SHARED} (../shared/datasets beside the repository)"
    )
    handler = functools.partial(_Handler, directory=str(SHARED))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def _no_leftovers(directory: Path):
    return not list(directory.glob(".*.tmp"))


HEART_SHA = "f5f3b4204c285bafadd85cb735f38b47689f2be7047feb172dcbeab648110bf9"


def test_download_verifies_sha256_and_writes_the_file(server, tmp_path):
    got = download_file(tmp_path / "heart.dat", sha256=HEART_SHA, urls=[f"{server}/heart/heart.dat"], dataset="heart")
    assert got == {"origin": f"{server}/heart/heart.dat", "sha256": HEART_SHA}
    assert (tmp_path / "heart.dat").read_bytes() == (SHARED / "heart/heart.dat").read_bytes()


def test_checksum_mismatch_leaves_nothing_and_names_dataset_and_file(server, tmp_path):
    with pytest.raises(DataError, match="sha256 mismatch") as info:
        download_file(tmp_path / "heart.dat", sha256="0" * 64, urls=[f"{server}/heart/heart.dat"], dataset="heart",
                      policy=FAST)
    assert "dataset 'heart'" in str(info.value) and "'heart.dat'" in str(info.value)
    assert not (tmp_path / "heart.dat").exists() and _no_leftovers(tmp_path)


def test_404_is_not_retried_and_falls_through_to_the_next_source(server, tmp_path):
    missing = f"{server}/heart/no-such-file"
    got = download_file(tmp_path / "heart.dat", sha256=HEART_SHA, urls=[missing, f"{server}/heart/heart.dat"],
                        dataset="heart", policy=FAST)
    assert got["origin"].endswith("/heart/heart.dat")
    assert _Handler.hits["/heart/no-such-file"] == 1
    with pytest.raises(DataError, match="HTTP 404"):
        download_file(tmp_path / "other.dat", sha256=None, urls=[missing], dataset="heart", policy=FAST)
    assert not (tmp_path / "other.dat").exists()


def test_timeout_is_retried_then_reported(server, tmp_path):
    url = f"{server}/slow/haberman/haberman.data"
    start = time.monotonic()
    with pytest.raises(DataError, match="timed out"):
        download_file(tmp_path / "haberman.data", sha256=None, urls=[url], dataset="haberman",
                      policy=DownloadPolicy(timeout=0.3, attempts=2, backoff=0.05))
    assert time.monotonic() - start < 1.9  # gave up on each attempt after ~0.3 s, not 2 s
    assert _Handler.hits["/slow/haberman/haberman.data"] == 2
    assert not (tmp_path / "haberman.data").exists() and _no_leftovers(tmp_path)


def test_interrupted_transfer_leaves_nothing(server, tmp_path):
    with pytest.raises(DataError, match="transfer ended after|IncompleteRead|incomplete"):
        download_file(tmp_path / "wine.data", sha256=None, urls=[f"{server}/truncated/wine/wine.data"],
                      dataset="wine", policy=FAST)
    assert _Handler.hits["/truncated/wine/wine.data"] == FAST.attempts
    assert not (tmp_path / "wine.data").exists() and _no_leftovers(tmp_path)


def test_large_files_report_progress_on_stderr(server, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(download, "_PROGRESS_SECONDS", 0.0)
    download_file(tmp_path / "eeg.arff", sha256=None, urls=[f"{server}/eeg/EEG%20Eye%20State.arff"], dataset="eeg")
    assert "dataset 'eeg', file 'eeg.arff': 1.7 MB of 1.7 MB" in capsys.readouterr().err
    download_file(tmp_path / "heart.dat", sha256=HEART_SHA, urls=[f"{server}/heart/heart.dat"], dataset="heart")
    # 16 kB: no progress lines (the loopback server's own thread may log a client's reset here)
    assert "file 'heart.dat'" not in capsys.readouterr().err


def test_mirror_is_tried_first_then_the_canonical_url(server, tmp_path):
    # Mirror lacks the file (404): the canonical URL delivers it.
    got = download_file(tmp_path / "heart.dat", sha256=HEART_SHA, urls=[f"{server}/heart/heart.dat"],
                        mirror=f"{server}/nowhere", mirror_path="heart/heart.dat", dataset="heart", policy=FAST)
    assert got["origin"] == f"{server}/heart/heart.dat"
    # Mirror has it: the unreachable canonical URL is never contacted.
    got = download_file(tmp_path / "heart2.dat", sha256=HEART_SHA, urls=["http://127.0.0.1:9/never"],
                        mirror=server, mirror_path="heart/heart.dat", dataset="heart", policy=FAST)
    assert got["origin"] == f"{server}/heart/heart.dat"


def test_local_directory_mirror_and_environment_variable(tmp_path, monkeypatch):
    monkeypatch.setenv(MIRROR_ENV, str(SHARED))
    spec = get_dataset("fertility")
    manifest = fetch_dataset(spec, tmp_path / "manifest.json", policy=FAST)
    assert manifest["files"][0]["origin"] == str(SHARED / "fertility/fertility_Diagnosis.txt")
    assert read_manifest(tmp_path / "manifest.json")["files"][0]["sha256"] == spec.source["files"][0]["sha256"]


def test_a_failed_file_removes_the_dataset_files_fetched_before_it(server, tmp_path):
    spec = get_dataset("monks1")
    broken = json.loads(json.dumps(spec.source))
    broken["files"][1]["mirror"] = "monks1/absent"
    broken["files"][1]["urls"] = []
    entry = {"task": spec.task, "source": broken, "parser": spec.parser, "label": spec.label, "split": spec.split,
             "drop_columns": list(spec.drop_columns)}
    with pytest.raises(DataError, match="(?s)monks-1.test.*HTTP 404"):
        fetch_dataset(spec_from_entry("monks1", entry), tmp_path / "manifest.json", mirror=server, policy=FAST)
    assert list(tmp_path.iterdir()) == []


OFFLINE = sorted(name for name, spec in load_registry().items() if spec.source["type"] == "url" and not spec.needs_download)
# Rows, features and (classification) classes of each dataset with an offline copy, from the
# MANIFEST and the UCI/LIBSVM descriptions: rows without missing values, id columns dropped.
SHAPES = {
    "australian": (690, 14), "breast-cancer": (683, 9), "parkinsons": (195, 22), "climate": (540, 18),
    "diabetic": (1151, 19), "fertility": (100, 9), "sonar-uci": (208, 60), "spect": (267, 22),
    "haberman": (306, 3), "heart-uci": (270, 13), "ionosphere-uci": (351, 33), "monks1": (556, 6),
    "monks2": (601, 6), "monks3": (554, 6), "splice-uci": (3188, 60), "transfusion": (748, 4),
    "eeg": (14976, 14), "ijcnn1-tr": (35000, 22), "ijcnn1": (141691, 22), "svmguide1": (7089, 4),
    "madelon": (2600, 500), "pima": (768, 8), "glass": (214, 9), "wine": (178, 13), "bodyfat": (252, 14),
    "cpusmall": (8192, 12), "housing": (506, 13), "mpg": (392, 7), "usps-t-3v5": (326, 256),
}


def test_every_offline_dataset_is_covered():
    assert set(OFFLINE) == set(SHAPES)


@pytest.mark.parametrize("name", OFFLINE)
def test_download_from_mirror_normalize_and_split(server, tmp_path, name):
    spec = get_dataset(name)
    manifest = fetch_dataset(spec, tmp_path / "manifest.json", mirror=server, policy=FAST)
    assert all(f["origin"].startswith(server) for f in manifest["files"])
    data = parse_dataset(spec, tmp_path, [f["file"] for f in read_manifest(tmp_path / "manifest.json")["files"]])
    assert data.X.shape == SHAPES[name]
    split = split_dataset(data, spec.split, dataset=name, rep=1, base_seed=3)
    np.testing.assert_allclose(split.X_train.min(axis=0), 0.0, atol=1e-12)
    assert np.all(split.X_train.max(axis=0) <= 1.0 + 1e-12)
    assert split.y_train.size + split.y_test.size == data.y.size
    if spec.split["protocol"] == "provided":
        np.testing.assert_array_equal(data.part[split.train_index], "train")
        np.testing.assert_array_equal(data.part[split.test_index], "test")
    if spec.task == "binary":
        assert set(np.unique(split.y_train)) == {-1.0, 1.0}


TABLE2_DATASETS = ["monks1", "spect", "fertility", "splice"]


@pytest.mark.workflow
def test_iklr_table2_rule_regenerates_the_paper_statistics(server, tmp_path):
    """Snakemake rule iklr_table2 on the small Table II datasets, fetched from the loopback mirror;
    m and n equal the paper's, μ_max within 10 % and μ_min's sign as in the paper (a random half,
    so not the paper's exact half)."""
    shutil.copy(ROOT / "Snakefile", tmp_path)
    shutil.copytree(ROOT / "workflow", tmp_path / "workflow")
    shutil.copy(ROOT / "config.yaml", tmp_path)
    config = yaml.safe_load((ROOT / "workflow/configs/paper-iklr.yaml").read_text())
    config["datasets"] = TABLE2_DATASETS
    config["dataset_options"] = {d: config["dataset_options"][d] for d in TABLE2_DATASETS if d in config["dataset_options"]}
    config["repetitions"] = 1
    config["mirror"] = server
    config["offline"] = True  # LIBSVM's splice is in no mirror: splice-uci stands in its row
    config["papers"]["iklr"]["fig3"] = {"datasets": ["monks1"]}  # panels must be config datasets
    # The studies' methods (Tables VI, VII, Fig. 2) name datasets outside this subset.
    config["methods"] = {name: spec for name, spec in config["methods"].items() if "datasets" not in spec}
    for study in ("table3", "table4", "table6", "table7", "fig2"):  # (Table IV: EEG, madelon, ...)
        config["papers"]["iklr"].pop(study, None)
    config["papers"].pop("iklr_mm17", None)  # MM'17's datasets
    config["fit_batches"] = [d for d in config["fit_batches"] if d in TABLE2_DATASETS]
    (tmp_path / "paper.yaml").write_text(yaml.safe_dump(config))
    result = subprocess.run([sys.executable, "-m", "snakemake", "--cores", "1", "iklr_table2", "--configfile", "paper.yaml"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    table = pd.read_csv(tmp_path / "results/tables/iklr_table2.csv").set_index("dataset")
    # the paper's row order; splice-uci stands in the paper's splice row, said in the note
    assert list(table.index) == ["fertility", "spect", "monks1", "splice-uci"]
    assert table.loc["splice-uci", "paper_dataset"] == "splice" and table.loc["splice-uci", "n_paper"] == 1000
    assert "offline: splice-uci stands in for splice" in table.loc["splice-uci", "note"]
    for name in ["fertility", "monks1"]:
        assert table.loc[name, "m"] == table.loc[name, "m_paper"]
    assert (table["n"] == table["n_paper"]).all()
    assert (table["n_train"] == table["n"] // 2).all()
    ratio = (table["mu_max"] / table["mu_max_paper"]).drop("splice-uci")  # another coding of the sequences
    assert ratio.between(0.9, 1.1).all(), ratio
    assert (table.loc[["monks1", "spect", "fertility"], "mu_min"] < 0).all()
    assert "splice (`splice-uci`)" in (tmp_path / "results/tables/iklr_table2.md").read_text()  # clearly indefinite in the paper too
    split = read_split(tmp_path / "data/splits/monks1/rep1.h5")
    assert json.loads(split.attrs["parts"]) == ["train"] and split.attrs["protocol"] == "random"
    assert "monks-1.train file" in (tmp_path / "results/tables/iklr_table2.md").read_text()


def test_offline_substitutes_stand_in_everywhere_the_config_names_the_original():
    config = yaml.safe_load((ROOT / "workflow/configs/paper-iklr.yaml").read_text())
    assert plan.offline_config(config) is config  # online: the config as written
    offline = plan.offline_config({**config, "offline": "true"})  # `--config offline=true` is a string
    assert "splice" not in offline["datasets"] and offline["datasets"][14] == "splice-uci"
    assert offline["dataset_options"]["splice-uci"] == {"split": {"max_n": 1000}}
    assert "splice" not in offline["dataset_options"]
    assert "splice-uci" in offline["methods"]["ksvm"]["datasets"]
    assert "splice-uci" in offline["papers"]["iklr_mm17"]["table2"]["datasets"]
    assert "splice-uci" in offline["papers"]["iklr"]["table3"]["datasets"]
    # the substitute keeps the paper's row name in every paper's tables
    assert plan.paper_names(offline, "iklr")["datasets"]["splice-uci"] == "splice"
    assert plan.paper_names(offline, "iklr_mm17")["datasets"]["splice-uci"] == "splice"
    assert plan.stand_ins(offline) == {"splice-uci": "splice"} and plan.stand_ins(config) == {}
    plan.check_config(offline)
    with pytest.raises(KreinbenchError, match=r"offline_substitutes.splice: its substitute 'monks1' is already"):
        plan.offline_config({**config, "offline": True, "offline_substitutes": {"splice": {"dataset": "monks1"}}})


def test_a_failed_fetch_of_a_dataset_with_an_offline_substitute_says_how_to_run_without_it(monkeypatch, tmp_path):
    from kreinbench.pipeline.stages import data as data_stage

    def unreachable(spec, manifest, mirror=None):
        raise DataError(f"{spec.name}: every source failed")

    monkeypatch.setattr(data_stage, "fetch_dataset", unreachable)
    entry = dataset_entry("splice")
    job = {"dataset": "splice", "entry": entry, "manifest": str(tmp_path / "manifest.json")}
    with pytest.raises(DataError, match=r"(?s)every source failed.*`--config offline=true`.*'splice-uci' in 'splice'"):
        data_stage.fetch(**job, offline_substitutes={"splice": {"dataset": "splice-uci"}})
    with pytest.raises(DataError, match=r"every source failed$"):
        data_stage.fetch(**job)
