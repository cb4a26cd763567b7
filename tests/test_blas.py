"""serial_syrk: one BLAS thread where OpenBLAS's threaded syrk crashes (kreinbench.linalg.blas)."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from kreinbench.linalg.blas import SERIAL_SYRK_FROM, serial_syrk


def blas_threads() -> list[int]:
    return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]


def test_large_outputs_run_on_one_thread_and_the_count_comes_back():
    with threadpool_limits(limits=2, user_api="blas"):
        before = blas_threads()
        with serial_syrk(SERIAL_SYRK_FROM):
            assert blas_threads() and set(blas_threads()) == {1}
        assert blas_threads() == before


def test_small_outputs_keep_their_threads():
    with threadpool_limits(limits=2, user_api="blas"):
        before = blas_threads()
        with serial_syrk(SERIAL_SYRK_FROM - 1):
            assert blas_threads() == before


@pytest.mark.slow
def test_cholesky_certificate_of_17500_rows_completes_on_two_threads():
    """The spectral step of IKLR Table IV's uncapped ijcnn1-tr (17 500 rows, positive definite):
    OpenBLAS's threaded dpotrf (0.3.30 in scipy's wheel) crashed the process there (SIGSEGV) on this project's AVX-512
    machine before the Cholesky certificate ran under serial_syrk.  A subprocess, so that a crash
    fails this test instead of ending the session; a positive definite Laplacian kernel on 1-d points."""
    script = textwrap.dedent("""
        import numpy as np
        from threadpoolctl import threadpool_limits
        from kreinbench.linalg.spectrum import compute_spectrum
        x = np.random.default_rng(0).standard_normal(17500)
        K = np.exp(-np.abs(x[:, None] - x[None, :]))
        with threadpool_limits(limits=2, user_api="blas"):
            spectrum = compute_spectrum(K, "negative")
        print(spectrum.eigenvalues[0])
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"exit {done.returncode}: {done.stderr[-2000:]}"
    mu_min = float(done.stdout.split()[-1])
    assert 0 < mu_min < 1  # K ≻ 0, and its smallest eigenvalue is far below its largest
    assert np.isfinite(mu_min)
