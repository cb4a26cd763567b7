"""Write examples/own-dataset.csv: the small, seeded example of a user's own dataset.

A CSV as a user brings one: a header row, four numeric features and a label column of strings.
The classes are a ring around a disc in (x1, x2), with 10 % of the labels flipped; x3 and x4 are
noise. Not a paper's dataset: it shows the own-dataset config (examples/own-dataset.yaml) working.

Usage: python examples/make_own_dataset.py   (rewrites the same bytes: seeded)
"""

from pathlib import Path

import numpy as np

ROWS, SEED, FLIPPED = 200, 7, 0.1
OUT = Path(__file__).with_name("own-dataset.csv")


def table(rows: int = ROWS, seed: int = SEED) -> str:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(rows, 4))
    outside = (X[:, 0] ** 2 + X[:, 1] ** 2 > 1.4) ^ (rng.random(rows) < FLIPPED)
    lines = ["x1,x2,x3,x4,class"]
    lines += [",".join(f"{v:.4f}" for v in x) + ("," + ("yes" if o else "no")) for x, o in zip(X, outside)]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    OUT.write_text(table())
    print(f"wrote {OUT}")
