"""Experiments of the papers that are not fit records: arrays in, data out (no files, no drawing)."""
