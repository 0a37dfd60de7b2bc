"""The dlsim binary: where it is, and one call of it.

The package drives the binary and reads what it prints and writes; it
parses no scenario value itself.  The binary is, in order: $DLSIM, the
source tree's ./dlsim (this file is python/dlsim/_binary.py there), or
`dlsim` on PATH (after `make install`).
"""
import os
import shutil
import subprocess


class DlsimError(Exception):
    """The binary refused or failed: its message, as the CLI prints it."""

    def __init__(self, message, status=None):
        super().__init__(message)
        self.status = status


def binary():
    env = os.environ.get("DLSIM")
    if env:
        return os.path.abspath(env)
    tree = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "dlsim")
    if os.path.isfile(tree) and os.access(tree, os.X_OK):
        return os.path.normpath(tree)
    found = shutil.which("dlsim")
    if not found:
        raise DlsimError("no dlsim binary: set DLSIM, build the source tree, or make install")
    return found


def call(args, cwd=None, ok=(0,)):
    """Runs dlsim ARGS; returns (status, stdout, stderr).  A status not in
    ok raises DlsimError with the binary's own message."""
    p = subprocess.run([binary()] + [str(a) for a in args], cwd=cwd, stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if p.returncode not in ok:
        msg = (p.stderr.strip() or p.stdout.strip() or "dlsim %s: exit %d" % (args[0], p.returncode))
        raise DlsimError(msg, p.returncode)
    return p.returncode, p.stdout, p.stderr
