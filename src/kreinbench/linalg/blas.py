"""One BLAS thread for the symmetric rank-k update (``syrk``) on large outputs.

OpenBLAS's threaded ``syrk`` crashes the process (SIGSEGV) on large outputs with its SkylakeX
(AVX-512) kernels. Measured with the wheels' OpenBLAS (numpy 2.4.6's 0.3.31, scipy 1.17.1's 0.3.30,
both crash) on a 2-core Xeon, 2 threads:

- ``dsyrk`` of an n × k panel crashed at n = 16 000 (k ≥ 1024) and n = 20 000 (k ≥ 256); it ran
  at n ≤ 12 000 for every k up to 4096, and at n = 14 000 and 15 000 with k = 2000;
- ``dpotrf`` (whose trailing updates are ``syrk``) crashed at 16 000 and 17 500 rows, ran at 14 000;
- numpy's ``A @ A.T`` (which numpy hands to ``syrk``) crashed at 17 500 × 2000;
- ``dsyr2k`` crashed at n = 17 500, k = 2000, and ran at k = 32 and 64: the symmetric eigensolvers
  call it with LAPACK's block size (32) in their tridiagonalization, so they keep their threads;
- ``gemm`` of the same sizes ran.

The backtrace is ``dsyrk_thread_LN → inner_thread → dgemm_otcopy_SKYLAKEX``, that of
OpenMathLib/OpenBLAS#1413. Every one of these ran on one thread, and with the Haswell kernels. One
thread costs little there: ``dpotrf`` of 17 500 rows took 26.5 s on one SkylakeX thread against
39 s on two Haswell ones.

So every call that may run ``syrk`` on an output of :data:`SERIAL_SYRK_FROM` rows or more (a
Cholesky factorization, an explicit ``syrk``, a Gram product ``A @ A.T``) runs inside
:func:`serial_syrk`; the bound is half the smallest size that crashed.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from threadpoolctl import threadpool_limits

SERIAL_SYRK_FROM = 8192


@contextmanager
def serial_syrk(rows: int) -> Iterator[None]:
    """Run the block on one BLAS thread when a ``syrk`` in it writes ``rows`` ≥
    :data:`SERIAL_SYRK_FROM` rows; otherwise leave the thread count alone."""
    if rows < SERIAL_SYRK_FROM:
        yield
        return
    with threadpool_limits(limits=1, user_api="blas"):
        yield
