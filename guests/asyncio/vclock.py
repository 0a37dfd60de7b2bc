"""vclock.py - the asyncio event loop on dlsim's clock, for guests that
import it from here: it is the SDK's dlsim.vclock.VirtualLoop
(python/dlsim/vclock.py, docs/guest.md "Writing a guest"), found in the
source tree (python/ beside guests/) or where make install put it."""
import os
import sys

_TREE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python")
if os.path.isfile(os.path.join(_TREE, "dlsim", "vclock.py")):
    sys.path.insert(0, _TREE)
from dlsim.vclock import VirtualLoop  # noqa: E402,F401
