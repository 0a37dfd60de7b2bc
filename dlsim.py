"""The source tree's way to the dlsim Python package (python/dlsim,
docs/python.md): `python3 -c "import dlsim"` in the tree's top folder,
beside the binary, finds this file first; it puts python/ on the path
and hands over to the package, which then is `dlsim` (this module is
gone).  Elsewhere PYTHONPATH=TREE/python, or make install."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "python"))
del sys.modules[__name__]
import dlsim  # noqa: E402,F401  the package: replaces this module in sys.modules
