"""IKLR (TNNLS, MM'17): the estimator with its CCCP / CCICP solvers, KLR and Flip/Clip/Shift KLR, TDCASVM."""
