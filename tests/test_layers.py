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
        if name.startswith("kreinbench.pipeline.stages."):
            siblings = {m for m in imported(tree) if m.startswith("kreinbench.pipeline.stages.") and m in MODULES and m != name}
            assert not siblings, f"{name} imports the stages {sorted(siblings)}"


def test_nothing_below_the_stages_imports_them():
    for name, tree in MODULES.items():
        if not name.startswith("kreinbench.pipeline.stages"):
            upward = {m for m in imported(tree) if m.startswith("kreinbench.pipeline.stages")}
            assert not upward, f"{name} imports {sorted(upward)}"


def test_only_the_runner_reads_the_snakemake_object():
    readers = {name for name, tree in MODULES.items()
               if any(isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                      and node.value.id == "snakemake" for node in ast.walk(tree))}
    assert readers == {"kreinbench.pipeline.stages.runner"}


# The subpackages of kreinbench, bottom to top; a module imports only from its own layer or below.
# The base (the package's __init__, errors, atomic writes, the lock) is below them all.
LAYERS = ["data", "linalg", "methods", "experiments", "report", "pipeline"]


def layer(module: str) -> int:
    parts = module.split(".")
    return LAYERS.index(parts[1]) + 1 if len(parts) > 1 and parts[1] in LAYERS else 0


def test_every_module_sits_in_a_layer_or_the_base():
    base = {"kreinbench", "kreinbench.errors", "kreinbench.atomic", "kreinbench.lock"}
    loose = {name for name in MODULES if layer(name) == 0} - base
    assert not loose, f"modules outside the layers {LAYERS}: {sorted(loose)}"


def test_no_module_imports_from_a_layer_above_its_own():
    for name, tree in MODULES.items():
        upward = {m for m in imported(tree) if m.startswith("kreinbench.") and layer(m) > layer(name)}
        assert not upward, f"{name} (layer {LAYERS[layer(name) - 1] if layer(name) else 'base'}) imports {sorted(upward)}"
