"""dlsim from Python: scenarios as data, runs, results as pandas
DataFrames, checks and fault search, over the dlsim binary, and the guest
SDK (dlsim.guest) for protocols written in Python (docs/python.md).

The names load when first used, so that `import dlsim.guest` (a guest
process) needs only the standard library, not pandas."""
import importlib

_WHERE = {
    "DlsimError": "_binary", "binary": "_binary",
    "Scenario": "scenario", "ScenarioError": "scenario", "keys": "scenario",
    "Results": "results", "Progress": "runs", "run": "runs",
    "check": "search", "explore": "search",
}

__all__ = sorted(_WHERE)


def __getattr__(name):
    if name in _WHERE:
        value = getattr(importlib.import_module("." + _WHERE[name], __name__), name)
        globals()[name] = value
        return value
    if name in ("plot", "guest", "search", "scenario", "results"):
        return importlib.import_module("." + name, __name__)
    raise AttributeError("module 'dlsim' has no attribute '%s'" % name)
