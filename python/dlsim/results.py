"""Results: a results database's tables as pandas DataFrames, read
through `dlsim export` (the binary's CSV: numbers as numbers, times in
seconds, NULL as missing), with the schema's column types applied so that
an empty table has them too (docs/user-guide.md, "The results
database")."""
import os
import tempfile

import pandas as pd

from ._binary import DlsimError, call

# the numeric columns of each table (results/res-file.c); "Int64" keeps an
# integer column with NULLs as integers
_I, _F = "Int64", "float64"
SCHEMA = {
    "runs": {"run_id": _I, "point": _I, "seed": _I, "wall_seconds": _F, "sim_end_s": _F},
    "params": {"run_id": _I},
    "peers": {"run_id": _I, "joined_s": _F, "left_s": _F, "rounds": _I, "speed": _F, "synced": _I,
              "retries_received": _I, "fails_received": _I, "accuracy": _F, "loss": _F,
              "uplink_bps": _I, "downlink_bps": _I},
    "rounds": {"run_id": _I, "round": _I, "list_s": _F, "start_s": _F, "end_s": _F,
               "participants": _I, "retries": _I, "excluded": _I},
    "events": {"run_id": _I, "seq": _I, "t_s": _F, "round": _I, "value": _I},
    "metrics": {"run_id": _I, "t_s": _F, "round": _I, "value": _F},
    "traffic": {"run_id": _I, "messages": _I, "bytes": _I},
    "summary": {"run_id": _I},
    "expectations": {"run_id": _I, "passed": _I},
    "violations": {"run_id": _I, "t_s": _F},
    "runs_wide": {"run_id": _I, "seed": _I},
}
TEXT = {"peer", "node", "other", "detail", "state", "msg", "kind", "property", "explanation",
        "type", "name", "key", "outcome", "scenario", "point_label", "mode", "file"}


class Results:
    """The runs of a results database (a path)."""

    def __init__(self, path):
        if not os.path.exists(path):
            raise DlsimError("%s: no such results database" % path)
        self.path = path

    @property
    def plot(self):
        """the figures of dlsim plot, with matplotlib: plot.convergence(x=, by=)"""
        from .plot import Plot
        return Plot(self)

    def table(self, name):
        """One table of the database (or runs_wide) as a DataFrame."""
        with tempfile.TemporaryDirectory(prefix="dlsim-py-") as tmp:
            call(["export", self.path, "--format", "csv", "-t", name, "-o", tmp])
            f = os.path.join(tmp, name + ".csv")
            text_cols = {c: str for c in TEXT}
            df = pd.read_csv(f, dtype=text_cols, keep_default_na=False, na_values=[""])
        for col, t in SCHEMA.get(name, {}).items():
            if col in df.columns:
                df[col] = pd.to_numeric(df[col], errors="raise").astype(t)
        return df

    def runs(self):
        """One row per run: the wide export (every parameter as written and
        in SI units, e.g. network.latency_s, and every summary value)."""
        return self.table("runs_wide")

    def events(self):
        return self.table("events")

    def rounds(self):
        return self.table("rounds")

    def metrics(self):
        return self.table("metrics")

    def peers(self):
        return self.table("peers")

    def traffic(self):
        return self.table("traffic")

    def violations(self):
        return self.table("violations")

    def summary(self):
        return self.table("summary")

    def params(self):
        return self.table("params")

    def expectations(self):
        return self.table("expectations")

    def __repr__(self):
        return "Results(%r)" % self.path
