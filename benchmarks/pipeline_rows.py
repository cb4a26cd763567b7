"""The rows a paper config's pipeline splits, for the measurements behind agreement explanations.

Shared by the scripts that back workflow/paper_values/explanations.yaml (benchmarks/results/*.md):
a dataset is fetched (``$KREINBENCH_MIRROR`` first) and parsed by the library with the config's
``dataset_options``, and each repetition's split is the pipeline's (its seed from the config's
``seed``), with one of two scaler choices:

* ``train``: [0, 1] min-max scaling fitted on the training half (the pipeline's protocol today);
* ``whole``: min-max scaling fitted on every row the split uses (both halves), then split. The
  library's split stage may gain this as ``scaler_fit: whole``; it is done here on the unscaled
  split so that these measurements do not depend on that change.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

import numpy as np
import yaml

from kreinbench.data.fetch import fetch_dataset
from kreinbench.data.parse import ParsedData, parse_dataset
from kreinbench.data.registry import dataset_entry, spec_from_entry
from kreinbench.data.split import Split, minmax_fit, split_dataset

ROOT = Path(__file__).resolve().parent.parent
SCALERS = ("train", "whole")


def config(name: str) -> dict:
    """A paper config of workflow/configs (e.g. ``paper-iklr``)."""
    return yaml.safe_load((ROOT / f"workflow/configs/{name}.yaml").read_text())


def entry(cfg: dict, dataset: str, **changes) -> dict:
    """``dataset``'s registry entry with the config's options (as rule ``split`` sees it), with
    top-level keys replaced by ``changes`` (e.g. ``drop_columns=[]``)."""
    return {**dataset_entry(dataset, cfg.get("custom_datasets"), cfg.get("dataset_options", {}).get(dataset)),
            **changes}


def fetched(dataset: str, dataset_entry_: dict, directory: str | Path) -> list[str]:
    """Fetch ``dataset``'s raw files (sha256-checked) into ``directory``; their names."""
    spec = spec_from_entry(dataset, dataset_entry_)
    manifest = fetch_dataset(spec, Path(directory) / "manifest.json", mirror=os.environ.get("KREINBENCH_MIRROR"))
    return [f["file"] for f in manifest["files"]]


def parsed(dataset: str, dataset_entry_: dict) -> ParsedData:
    """The parsed rows of ``dataset`` as its ``dataset_entry_`` describes them."""
    with tempfile.TemporaryDirectory() as raw:
        files = fetched(dataset, dataset_entry_, raw)
        return parse_dataset(spec_from_entry(dataset, dataset_entry_), raw, files)


def split(data: ParsedData, split_spec: dict, *, dataset: str, rep: int, seed: int, scaler: str) -> Split:
    """Repetition ``rep``'s split of ``data`` (the pipeline's rows), scaled as ``scaler`` says."""
    if scaler == "train":
        return split_dataset(data, split_spec, dataset=dataset, rep=rep, base_seed=seed)
    if scaler != "whole":
        raise ValueError(f"dataset {dataset!r}: unknown scaler {scaler!r} (known: {', '.join(SCALERS)})")
    raw = split_dataset(data, {**split_spec, "scaling": "none"}, dataset=dataset, rep=rep, base_seed=seed)
    lo, span = minmax_fit(np.vstack([raw.X_train, raw.X_test]))
    return Split(X_train=(raw.X_train - lo) / span, X_test=(raw.X_test - lo) / span, y_train=raw.y_train,
                 y_test=raw.y_test, train_index=raw.train_index, test_index=raw.test_index,
                 attrs={**raw.attrs, "scaling": "minmax (whole set)"})


def random_split(data: ParsedData, *, dataset: str, rep: int, seed: int, scaler: str) -> Split:
    """:func:`split` with the 50/50 random protocol (for rows built outside the registry)."""
    return split(data, {"protocol": "random", "test_size": 0.5}, dataset=dataset, rep=rep, seed=seed, scaler=scaler)


def tl1_tau(X: np.ndarray, factor: float = 0.7) -> float:
    """The TL1 kernel's τ = 0.7·m of IKLR §V-A for features ``X``."""
    return factor * X.shape[1]


def extremes(K: np.ndarray) -> tuple[float, float]:
    """μ_min and μ_max of a symmetric matrix (LAPACK ``syevd``: every eigenvalue, exact)."""
    eigenvalues = np.linalg.eigvalsh(K)
    return float(eigenvalues[0]), float(eigenvalues[-1])


def markdown_table(rows: list[dict], columns: list[str]) -> str:
    """``rows`` as a Markdown table with ``columns`` (floats to 4 significant digits)."""
    def cell(value) -> str:
        return f"{value:.4g}" if isinstance(value, float) else str(value)
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(row.get(c, "")) for c in columns) + " |" for row in rows]
    return "\n".join(lines)



def header(doc: str) -> str:
    """A script's output header from its docstring: the first line as the title, the paragraphs
    after the usage paragraph as the text, the usage as the command that regenerates it."""
    title, usage, *text = doc.strip().split("\n\n")
    command = " ".join(line.strip() for line in usage.removeprefix("Usage:").splitlines())
    return "\n\n".join([f"# {title}", f"Regenerate: `{command}`", *map(_reflowed, text)]) + "\n"


def _reflowed(paragraph: str) -> str:
    """A docstring paragraph on one line, or one line per item where it is a list ("* ", "1. ")."""
    items = re.split(r"\n\s*(?=\* |\d+\. )", paragraph.strip())
    return "\n".join(" ".join(item.split()) for item in items)
