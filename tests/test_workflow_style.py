"""The Snakemake files as snakefmt formats them and as `snakemake --lint` wants them."""

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

pytestmark = pytest.mark.workflow  # snakefmt and snakemake --lint on the rules

SNAKEFILES = [ROOT / "Snakefile", *sorted((ROOT / "workflow/rules").glob("*.smk"))]


def test_snakemake_files_are_formatted():
    snakefmt = Path(sys.executable).with_name("snakefmt")
    result = subprocess.run([str(snakefmt), "--check", *map(str, SNAKEFILES)], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, (result.stdout + result.stderr)[-3000:]


def test_workflow_has_no_lints():
    result = subprocess.run([sys.executable, "-m", "snakemake", "--lint", "--cores", "1"], cwd=ROOT,
                            capture_output=True, text=True, timeout=300)
    out = result.stdout + result.stderr
    assert result.returncode == 0 and "Lints for" not in out, out[-3000:]
