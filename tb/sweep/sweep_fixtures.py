"""Shared by the reproduction scripts' tests (test_jatala_fig9.py,
test_expars_reproduction.py, test_zorua_reproduction.py,
test_crosssm_reproduction.py): a results.json in `smshare sweep`'s format,
read back as the scripts read it."""
import json
import os
import tempfile

import sweep_results


def results(sweep, spec_path, row_list):
    """`row_list` written as sweep `sweep`'s results.json and read back with
    sweep_results.Results (the file is removed again)."""
    d = tempfile.mkdtemp(prefix=f"{sweep}_")
    path = os.path.join(d, "results.json")
    with open(path, "w") as f:
        json.dump({"sweep": sweep, "spec": spec_path,
                   "columns": sorted({c for r in row_list for c in r}), "rows": row_list}, f)
    r = sweep_results.Results(path)
    os.remove(path)
    os.rmdir(d)
    return r
