"""dlsim from Python: scenarios as data, runs, results as pandas
DataFrames, checks and fault search, over the dlsim binary
(docs/python.md)."""
from ._binary import DlsimError, binary
from .scenario import Scenario, ScenarioError, keys
from .results import Results
from .run import Progress, run
from .search import check, explore
from . import plot

__all__ = ["DlsimError", "Progress", "Results", "Scenario", "ScenarioError", "binary", "check",
           "explore", "keys", "run"]
