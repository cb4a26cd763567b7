"""The lock (requirements.lock): exact versions of everything installed, and the install uses it.

The drift test (the first) fails while the running environment and the committed lock differ: after
an upgrade that did not regenerate the lock (`make lock`), or a dependency added to pyproject.toml
without one.
"""

import re
import shutil
from pathlib import Path

import pytest

from kreinbench import lock
from kreinbench.errors import KreinbenchError

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / lock.LOCK_NAME


def test_the_lock_pins_every_distribution_the_package_needs_at_its_installed_version():
    problems = lock.drift(ROOT)
    assert not problems, ("the environment and requirements.lock differ (`make install` installs the lock; "
                          "`make lock` is the deliberate upgrade):\n" + "\n".join(problems))


def test_every_pin_is_exact_and_from_the_index():
    pins = lock.read_lock(LOCK)  # raises on a range, a URL or a local path
    runtime, build = lock.locked_roots(ROOT)
    for req in runtime + build:
        name = req.name.lower()
        if name != "kreinbench":
            assert name in pins and req.specifier.contains(pins[name], prereleases=True), req
    assert "kreinbench" not in pins  # the project installs from its tree
    assert LOCK.read_text().startswith(lock.HEADER)  # says how it is made and upgraded


@pytest.mark.parametrize("line", ["numpy>=2", "numpy==2.*", "numpy @ file:///wheels/numpy.whl",
                                  "numpy==2.4.6; python_version < '3.12'", "numpy"])
def test_a_pin_that_is_not_exact_is_refused(tmp_path, line):
    path = tmp_path / lock.LOCK_NAME
    path.write_text(f"# header\nscipy==1.17.1\n{line}\n")
    with pytest.raises(KreinbenchError, match=rf"{lock.LOCK_NAME}:3: .* not an exact pin"):
        lock.read_lock(path)


def project_with_lock(tmp_path, edit):
    """A copy of the project's pyproject.toml beside the committed lock changed by ``edit``."""
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / lock.LOCK_NAME).write_text(edit(LOCK.read_text()))
    return tmp_path


def test_drift_names_a_changed_version_a_missing_pin_and_a_pin_nothing_needs(tmp_path):
    import numpy
    import scipy

    def edit(text):
        text = re.sub(r"(?m)^numpy==.*$", "numpy==1.0.0", text)
        text = re.sub(r"(?m)^scipy==.*\n", "", text)
        text = re.sub(r"(?m)^setuptools==.*\n", "", text)
        return text + "left-pad==1.3.0\n"

    problems = lock.drift(project_with_lock(tmp_path, edit))
    assert sorted(problems) == sorted([f"numpy {numpy.__version__} installed, 1.0.0",
                                       f"scipy {scipy.__version__} installed, not in the lock",
                                       "build requirement setuptools>=77 not pinned in the lock",
                                       "left-pad==1.3.0 in the lock, needed by nothing"])


def recipe(makefile: str, target: str) -> tuple[str, list[str]]:
    """(the prerequisites, the recipe lines) of ``target`` in a Makefile's text."""
    match = re.search(rf"(?m)^{re.escape(target)}:(.*)\n((?:\t.*\n)+)", makefile)
    assert match, target
    return match.group(1), [line.strip() for line in match.group(2).splitlines()]


def test_make_install_test_run_and_ci_install_from_the_lock():
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(rf"(?m)^LOCK := {re.escape(lock.LOCK_NAME)}$", makefile)
    prerequisites, lines = recipe(makefile, "$(STAMP)")
    assert "$(LOCK)" in prerequisites.split()  # a new lock reinstalls
    installs = [line for line in lines if "pip install" in line]
    assert installs and all("-c $(LOCK)" in line and "--upgrade" not in line for line in installs)
    assert any("--build-constraint $(LOCK)" in line and "-e '.[test]'" in line for line in installs)
    assert re.search(r"(?m)^install: \$\(STAMP\)$", makefile)
    assert all("$(STAMP)" in recipe(makefile, target)[0].split() for target in ("test", "run"))
    assert "make test" in (ROOT / ".ci/run").read_text()
    # `make lock`, the one place that installs from the ranges, writes the lock from what it installed
    lock_lines = recipe(makefile, "lock")[1]
    assert any("--upgrade" in line and ".[test,slurm]" in line for line in lock_lines)
    assert "$(VENV)/bin/python -m kreinbench.lock" in lock_lines


def test_every_pip_install_the_readme_shows_uses_the_lock():
    commands = re.findall(r"pip install[^\n`]*", (ROOT / "README.md").read_text())
    assert commands and all(f"-c {lock.LOCK_NAME}" in command for command in commands), commands
