"""Indefinite SVM (Ying, Campbell, Girolami; Luss and d'Aspremont): the proxy-kernel SVM by SPGM, SMM and APG, and the SVM / KSVM baselines."""
