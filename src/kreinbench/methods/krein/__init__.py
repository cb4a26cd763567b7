"""Methods for indefinite kernels that came after the three papers: Kreĭn kernel regularized least squares."""
