"""DANK (JMLR): data-adaptive nonparametric kernels F ⊙ K in SVM and SVR, exact and k-means-partitioned, with the reciprocal-nearest-neighbour extension."""
