"""Every explanation of a disagreeing paper cell cites a committed measurement.

workflow/paper_values/explanations.yaml: each entry's ``evidence`` lists committed files (a
benchmark's output under benchmarks/results/, a committed reproduction's table or record) or test
node ids (``tests/test_x.py::test_name``) that hold the numbers its ``why`` states. An entry
without evidence, or citing a file or test that does not exist, fails here: an honest
"unexplained" beats a guess.
"""

import ast
import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
EXPLANATIONS = ROOT / "workflow/paper_values/explanations.yaml"


def entries() -> list[dict]:
    return yaml.safe_load(EXPLANATIONS.read_text())


def entry_id(entry: dict) -> str:
    return f"{entry['table']}/{entry['dataset']}/{entry['column']}"


def evidence_problems(entry: dict, root: Path = ROOT) -> list[str]:
    """What is wrong with ``entry``'s ``evidence`` (nothing: an empty list)."""
    cited = entry.get("evidence")
    if isinstance(cited, str):
        cited = [cited]
    if not cited:
        return ["no evidence: cite the committed output of a benchmark or a test node id, or remove the entry"]
    problems = []
    for item in cited:
        path, _, test = str(item).partition("::")
        if not (root / path).is_file():
            problems.append(f"{item!r}: no file {path!r} in the repository")
        elif test and test not in defined_tests(root / path):
            problems.append(f"{item!r}: {path} defines no test {test!r}")
        elif path.startswith("benchmarks/results/"):
            problems += regenerating_script_problems(root, path)
    return problems


def defined_tests(path: Path) -> set[str]:
    """Top-level test functions and Class::method names of a test module."""
    names = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.FunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef):
            names |= {f"{node.name}::{f.name}" for f in node.body if isinstance(f, ast.FunctionDef)}
    return names


def regenerating_script_problems(root: Path, path: str) -> list[str]:
    """A benchmark output must name the script of benchmarks/ that writes it, and that script must exist."""
    match = re.search(r"benchmarks/(\w+\.py)", (root / path).read_text())
    if match is None:
        return [f"{path}: names no benchmarks/*.py script that regenerates it"]
    if not (root / "benchmarks" / match.group(1)).is_file():
        return [f"{path}: its script benchmarks/{match.group(1)} does not exist"]
    return []


@pytest.mark.parametrize("entry", entries(), ids=entry_id)
def test_every_explanation_cites_committed_evidence(entry):
    assert evidence_problems(entry) == []


def test_missing_or_dangling_evidence_is_named(tmp_path):
    (tmp_path / "benchmarks/results").mkdir(parents=True)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests/test_k.py").write_text("def test_one():\n    pass\n\nclass TestK:\n    def test_two(self):\n        pass\n")
    (tmp_path / "benchmarks/results/m.md").write_text("# m\n\nRegenerate: `python benchmarks/m.py`\n")
    (tmp_path / "benchmarks/results/orphan.md").write_text("# no script named\n")
    assert evidence_problems({"why": "a guess"}, tmp_path) == [
        "no evidence: cite the committed output of a benchmark or a test node id, or remove the entry"]
    assert evidence_problems({"evidence": []}, tmp_path)
    assert evidence_problems({"evidence": ["tests/test_k.py::test_one", "tests/test_k.py::TestK::test_two"]},
                             tmp_path) == []
    problems = evidence_problems({"evidence": ["nowhere.md", "tests/test_k.py::test_three",
                                               "benchmarks/results/m.md", "benchmarks/results/orphan.md"]}, tmp_path)
    assert problems == ["'nowhere.md': no file 'nowhere.md' in the repository",
                        "'tests/test_k.py::test_three': tests/test_k.py defines no test 'test_three'",
                        "benchmarks/results/m.md: its script benchmarks/m.py does not exist",
                        "benchmarks/results/orphan.md: names no benchmarks/*.py script that regenerates it"]
    (tmp_path / "benchmarks/m.py").write_text("print('m')\n")
    assert evidence_problems({"evidence": "benchmarks/results/m.md"}, tmp_path) == []
