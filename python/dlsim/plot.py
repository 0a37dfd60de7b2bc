"""Results.plot: the figures of `dlsim plot`, drawn with matplotlib from
the same tables and with the same definitions (plots/plot.c).

convergence: one line per value of a parameter (--by), the mean over the
runs (seeds) of each run's curve, with a 95% Student-t confidence band
over the runs; a copy of a run (the same provenance.run_identity) counts
once.  A run's curve by round is the mean over its peers of their
accuracy (or loss) at that round; by time, at each of 120 instants up to
the longest run's end, the mean over the peers online or finished at that
instant of their latest value (if none has one, every peer's latest
value: plots/plot-mean.c).
"""
import math

import pandas as pd

GRID = 120


_t975 = {}


def _t_pdf(x, df):
    c = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)
    return c * (1 + x * x / df) ** (-(df + 1) / 2)


def _t_mass(q, df, n=4000):
    """P(0 < T < q), Simpson's rule"""
    h = q / n
    s = _t_pdf(0, df) + _t_pdf(q, df)
    s += sum((4 if k % 2 else 2) * _t_pdf(k * h, df) for k in range(1, n))
    return s * h / 3


def t975(df):
    """the 0.975 quantile of Student's t with df degrees of freedom, as
    dlsim plot's band uses (GSL's gsl_cdf_tdist_Pinv there): Newton's
    method on the mass from 0, which is concave, so it climbs to the root
    from below"""
    if df not in _t975:
        q = 0.0
        for _ in range(200):
            step = (0.475 - _t_mass(q, df)) / _t_pdf(q, df)
            q += step
            if abs(step) < 1e-12 * max(1.0, q):
                break
        _t975[df] = q
    return _t975[df]


def mean_ci(curves):
    """DataFrame x, mean, lo, hi, n over the runs' curves (Series by x)"""
    rows = []
    table = pd.concat(curves, axis=1) if curves else pd.DataFrame()
    for x, vals in table.iterrows():
        v = vals.dropna().astype(float)
        k = len(v)
        if k == 0:
            continue
        mean, half = v.mean(), 0.0
        if k > 1:
            half = t975(k - 1) * math.sqrt(max(0.0, v.var(ddof=1)) / k)
        rows.append((x, mean, mean - half, mean + half, k))
    return pd.DataFrame(rows, columns=["x", "mean", "lo", "hi", "n"])


def _default_by(runs):
    keys = set()
    for label in runs["point_label"].fillna(""):
        if not label or "," in label:
            return "scenario.name"
        keys.add(label.split("=", 1)[0])
    return keys.pop() if len(keys) == 1 else "scenario.name"


def run_curve(metrics, peers, metric, by_time, grid):
    """one run's curve: Series indexed by round or by grid time"""
    m = metrics[(metrics["name"] == metric) & metrics["value"].notna()]
    if not by_time:
        return m.groupby("round")["value"].mean().astype(float)
    m = m.sort_values("t_s", kind="stable")
    left = {p.peer: (p.left_s, p.outcome) for p in peers.itertuples()}
    out, latest, i, rows = [], {}, 0, list(m[["t_s", "peer", "value"]].itertuples(index=False))
    for t in grid:
        while i < len(rows) and rows[i][0] <= t:
            latest[rows[i][1]] = rows[i][2]
            i += 1
        # when no peer there or finished has a value (every session has
        # left), the mean of every peer's latest value, as plot-mean.c
        vals = [v for p, v in latest.items() if _counts(left.get(p), t)] or list(latest.values())
        out.append(sum(vals) / len(vals) if vals else float("nan"))
    return pd.Series(out, index=grid, dtype=float)


def _counts(left, t):
    """a peer online at t, or one that finished"""
    if left is None:
        return True
    left_s, outcome = left
    return outcome == "finished" or pd.isna(left_s) or t < left_s


class Plot:
    """Results.plot"""

    def __init__(self, results):
        self.results = results

    def convergence_data(self, x="round", by=None):
        """{(metric, group value): DataFrame x, mean, lo, hi, n}: the lines
        convergence draws, with its by key"""
        if x not in ("round", "time"):
            raise ValueError("x must be time or round, not '%s'" % x)
        res = self.results
        runs = res.runs()
        if "provenance.run_identity" in runs.columns:
            runs = runs.drop_duplicates("provenance.run_identity")
        by = by or _default_by(runs)
        col = by if by in runs.columns else None
        if by == "scenario.name":
            runs = runs.assign(**{"scenario.name": runs.get("scenario.name", pd.Series(dtype=str))
                                  .fillna("").where(lambda s: s != "", runs["scenario"])})
            col = by
        if col is None:
            raise ValueError("no run in %s has the parameter '%s'" % (res.path, by))
        metrics, peers = res.metrics(), res.peers()
        if not ((metrics["name"] == "accuracy") & metrics["value"].notna()).any():
            raise ValueError("%s has no accuracy metrics" % res.path)
        ends = res.table("runs").set_index("run_id")["sim_end_s"]
        max_t = float(ends[ends.index.isin(runs["run_id"])].max())
        grid = [max_t * (i + 1) / GRID for i in range(GRID)]
        lines = {}
        for value, g in runs.groupby(col, sort=False):
            for metric in ("accuracy", "loss"):
                curves = [run_curve(metrics[metrics["run_id"] == r], peers[peers["run_id"] == r],
                                    metric, x == "time", grid) for r in g["run_id"]]
                lines[(metric, str(value))] = mean_ci(curves)
        return by, lines

    def convergence(self, x="round", by=None, ax=None):
        """Test accuracy (top) and loss (bottom) by round or simulated time,
        one line per value of by (default: the swept key), the mean over
        seeds with a 95% confidence band.  Returns the matplotlib Figure."""
        import matplotlib.pyplot as plt
        by, lines = self.convergence_data(x, by)
        if ax is None:
            fig, ax = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
        else:
            fig = ax[0].figure
        for i, metric in enumerate(("accuracy", "loss")):
            for (m, value), d in lines.items():
                if m != metric or d.empty:
                    continue
                ax[i].fill_between(d["x"], d["lo"], d["hi"], alpha=0.18)
                ax[i].plot(d["x"], d["mean"], marker="o", markevery=max(len(d) // 12, 1),
                           label="%s = %s" % (by, value))
            ax[i].set_ylabel("test accuracy (fraction correct)" if metric == "accuracy"
                             else "test loss (cross-entropy, nats)")
        ax[0].legend()
        ax[1].set_xlabel("simulated time (s)" if x == "time" else "round")
        fig.suptitle("test accuracy and loss by %s, one line per %s (mean over seeds, 95%% confidence band)"
                     % ("simulated time" if x == "time" else "round", by), fontsize=10)
        return fig
