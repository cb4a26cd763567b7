"""The scale study's plan (key ``papers.scale``): which points it fits and where each one's row goes.

A point is one dataset × training size × *variant*: an exact method (``iklr``, ``ksvm``, ``svc``:
the n × n kernel, up to ``exact_max_n`` training rows) or Nyström IKLR with m landmarks
(``nystrom-iklr-m<m>``, every size). Each point is one Snakemake job, so its peak memory is its
own process's (:func:`kreinbench.experiments.scale.scale_point`). The rows are gathered into
``results/tables/scale.csv`` and drawn log-log (:mod:`kreinbench.pipeline.stages.scale`).
"""

from __future__ import annotations

import re
from typing import Any

from kreinbench.errors import KreinbenchError
from kreinbench.experiments.scale import METHODS
from kreinbench.pipeline.paths import scale_point_path

NYSTROM = "nystrom-iklr"
EXACT = tuple(m for m in METHODS if m != NYSTROM)
_VARIANT = re.compile(rf"^(?:(?P<exact>{'|'.join(EXACT)})|{NYSTROM}-m(?P<m>[1-9][0-9]*))$")


def block(config: dict) -> dict[str, Any]:
    return config.get("papers", {}).get("scale", {})


def variants(config: dict) -> list[str]:
    """The study's variants: its exact methods, then Nyström IKLR at each landmark count."""
    spec = block(config)
    exact = [m for m in spec.get("estimators", []) if m != NYSTROM]
    nystrom = [f"{NYSTROM}-m{m}" for m in spec.get("landmarks", [])] if NYSTROM in spec.get("estimators", []) else []
    return exact + nystrom


def parse_variant(variant: str) -> tuple[str, int | None]:
    """``(method, m)`` of a variant name: ``("iklr", None)``, ``("nystrom-iklr", 500)``."""
    found = _VARIANT.match(variant)
    if found is None:
        raise KreinbenchError(f"scale study: {variant!r} is no variant; known: {', '.join(EXACT)}, {NYSTROM}-m<m>")
    return (found["exact"], None) if found["exact"] else (NYSTROM, int(found["m"]))


def points(config: dict) -> list[str]:
    """Every point's row file: each dataset's sizes × the variants (exact ones up to exact_max_n,
    Nyström ones with at most n landmarks: m landmarks are drawn from the n training rows)."""
    spec = block(config)
    if not spec:
        return []

    def planned(variant: str, n: int) -> bool:
        m = parse_variant(variant)[1]
        return n <= spec["exact_max_n"] if m is None else m <= n

    return [scale_point_path(dataset, variant, n)
            for dataset, sizes in spec["sizes"].items() for n in sizes for variant in variants(config)
            if planned(variant, n)]


def check(config: dict) -> None:
    """The study's datasets and kernel exist in the config; a clear error naming the key otherwise."""
    spec = block(config)
    if not spec:
        return
    for dataset in spec["sizes"]:
        if dataset not in config["datasets"]:
            raise KreinbenchError(f"papers.scale.sizes: {dataset!r} is not in datasets")
    if spec["kernel"] not in config["kernels"]:
        raise KreinbenchError(f"papers.scale.kernel: {spec['kernel']!r} is not in kernels")
    if NYSTROM in spec["estimators"] and not spec.get("landmarks"):
        raise KreinbenchError(f"papers.scale.landmarks: {NYSTROM} needs at least one landmark count")
