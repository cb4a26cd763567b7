"""The layering docs/architecture.md promises, read from the sources' imports (no module is run)."""

import ast
from pathlib import Path

from conftest import ROOT

PACKAGE = ROOT / "src" / "kreinbench"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


MODULES = {module_name(path): ast.parse(path.read_text()) for path in PACKAGE.rglob("*.py")}


def test_no_stage_imports_another_stage():
    for name, tree in MODULES.items():
        if name.startswith("kreinbench.stages."):
            siblings = {m for m in imported(tree) if m.startswith("kreinbench.stages.") and m in MODULES and m != name}
            assert not siblings, f"{name} imports the stages {sorted(siblings)}"


def test_nothing_below_the_stages_imports_them():
    for name, tree in MODULES.items():
        if not name.startswith("kreinbench.stages"):
            upward = {m for m in imported(tree) if m.startswith("kreinbench.stages")}
            assert not upward, f"{name} imports {sorted(upward)}"


def test_estimators_import_no_pipeline_code():
    """kreinbench.methods is usable without the workflow: no planning, stages, records or report."""
    pipeline = ("kreinbench.plan", "kreinbench.stages", "kreinbench.paper_targets", "kreinbench.reproduction",
                "kreinbench.report", "kreinbench.resources", "kreinbench.agreement", "kreinbench.experiments")
    for name, tree in MODULES.items():
        if name.startswith("kreinbench.methods"):
            found = {m for m in imported(tree) if m.startswith(pipeline)}
            assert not found, f"{name} imports {sorted(found)}"


def test_only_the_runner_reads_the_snakemake_object():
    readers = {name for name, tree in MODULES.items()
               if any(isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                      and node.value.id == "snakemake" for node in ast.walk(tree))}
    assert readers == {"kreinbench.stages.runner"}
