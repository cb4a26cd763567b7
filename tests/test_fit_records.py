"""The one fit-record format (kreinbench.pipeline.fit_records): written and read back the same by
rule fit, DANK Table 4's repetitions and the scale study's points."""

import json

import numpy as np
import pytest

from kreinbench.errors import KreinbenchError
from kreinbench.pipeline import fit_records


def test_a_record_reads_back_as_written_with_numpy_scalars_as_numbers(tmp_path):
    path = tmp_path / "fits/blobs/svm/rep1.json"
    record = {"dataset": "blobs", "method": "svm", "rep": 1, "accuracy": np.float64(0.75), "n_iter": np.int64(12),
              "params": {"C": 1.0}, "history": [{"iteration": 0, "objective": 2.5}]}
    fit_records.write(path, record)
    assert fit_records.read_all([path]) == [{**record, "accuracy": 0.75, "n_iter": 12}]
    assert type(json.loads(path.read_text())["n_iter"]) is int


def test_a_record_without_its_identity_is_refused_and_nothing_is_written(tmp_path):
    path = tmp_path / "rep1.json"
    with pytest.raises(KreinbenchError, match=r"rep1.json: no method"):
        fit_records.write(path, {"dataset": "blobs", "rep": 1})
    assert not path.exists()


@pytest.mark.parametrize("text, message", [('{"dataset": "blobs", "meth', "not JSON"),
                                           ('[{"dataset": "blobs"}]', "not a fit record")])
def test_a_truncated_or_foreign_file_is_an_error_naming_it(tmp_path, text, message):
    path = tmp_path / "rep2.json"
    path.write_text(text)
    with pytest.raises(KreinbenchError, match=rf"fit record .*rep2.json: {message}"):
        fit_records.read(path)
