"""Re-ranks every query of a ``ppg rerank`` input with the installed wheel and writes to
OUT what ``ppg rerank FILE --seed SEED --sessions SESSIONS`` prints.

    python rerank.py FILE SEED SESSIONS OUT
"""

import sys

import pandas as pd

import ppg

path, seed, sessions, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
rows = pd.read_csv(path, sep="\t", dtype={"qid": str, "item": str, "group": str})
ranked = ppg.rerank_frame(rows, seed=seed, sessions=sessions)
# The columns `ppg rerank` writes; the certificate's (certified, gap) are its --report's.
ranked[["qid", "session", "rank", "item"]].to_csv(out, sep="\t", index=False)
print(f"ppg {ppg.__version__} from {ppg.__file__}")
