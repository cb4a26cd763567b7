"""Kernel matrices (explicit, implicit, Nyström), positive-definiteness, spectra and their cache."""
