import numpy as np
import pytest

from kreinbench.data.fetch import fetch_dataset
from kreinbench.data.parse import parse_dataset
from kreinbench.data.registry import get_dataset
from kreinbench.data.split import make_split
from kreinbench.kernels import kernel_matrices, resolve_params


@pytest.fixture(scope="session")
def load_split(tmp_path_factory):
    """Fetch, parse and split a registry dataset (cached per session)."""
    cache = {}

    def load(name, rep=1, seed=0):
        key = (name, rep, seed)
        if key not in cache:
            spec = get_dataset(name)
            raw = tmp_path_factory.mktemp(name)
            manifest = fetch_dataset(spec, raw / "manifest.json")
            data = parse_dataset(spec, raw, [f["file"] for f in manifest["files"]])
            cache[key] = make_split(data, dataset=name, rep=rep, base_seed=seed, test_size=0.5)
        return cache[key]

    return load


@pytest.fixture(scope="session")
def tl1_monk2(load_split):
    """Indefinite TL1 kernel (tau = 0.7 m) on the training half of KEEL monk-2 and its test cross-kernel."""
    split = load_split("monk-2")
    params = resolve_params({"type": "tl1", "tau_factor": 0.7}, split.X_train.shape[1])
    K, K_test = kernel_matrices(params, split.X_train, split.X_test)
    return K, K_test, split.y_train, split.y_test


@pytest.fixture(scope="session")
def rbf_heart(load_split):
    """PSD RBF kernel (sigma = 1) on the training half of KEEL heart."""
    split = load_split("heart")
    params = resolve_params({"type": "rbf", "sigma": 1.0}, split.X_train.shape[1])
    K, K_test = kernel_matrices(params, split.X_train, split.X_test)
    return K, K_test, split.y_train, split.y_test


def klr_objective_and_gradient(K, y_pm, lam, alpha, b):
    """Independent implementation of f(α, b) and its gradient for the tests."""
    n = y_pm.size
    m = K @ alpha + b
    f = np.mean(np.logaddexp(0.0, -y_pm * m)) + 0.5 * lam * alpha @ K @ alpha
    s = 1.0 / (1.0 + np.exp(np.clip(y_pm * m, -700, 700)))
    u = y_pm * s / n
    return f, K @ (lam * alpha - u), -u.sum()
