"""Scenarios as data: a scenario file's sections and keys, in order, as
text values, checked by the binary.

The package parses no value: `set` and `load` check a key against
`dlsim run --keys` and then load the whole scenario through the binary
(`dlsim run` with a shard that selects no run), so a bad value is refused
with the CLI's own message, naming the file, section and key.
"""
import os
import re
import tempfile

from ._binary import DlsimError, call

_keys_cache = {}
# sections whose keys are not in `dlsim run --keys`: times and properties
FREE_SECTIONS = ("timeline", "expect")


class ScenarioError(DlsimError):
    """A scenario the binary refuses: FILE: [section] key: why."""


def keys():
    """Every scenario key `dlsim run --keys` lists: {"section.key":
    (default, meaning)}."""
    if "keys" not in _keys_cache:
        _, out, _ = call(["run", "--keys"])
        table = {}
        for line in out.splitlines():
            m = re.match(r"^(\S+)\s+(\"\"|\S+)\s+(.*)$", line)
            if m:
                table[m.group(1)] = (m.group(2), m.group(3))
        _keys_cache["keys"] = table
    return _keys_cache["keys"]


def _text(value):
    if isinstance(value, (list, tuple, range)):
        return "${" + ", ".join(_text(v) for v in value) + "}"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _split(key):
    if "." not in key:
        raise ScenarioError("'%s': a key is SECTION.KEY (network.latency)" % key)
    return key.split(".", 1)


class Scenario:
    """A scenario: Scenario({"peers": {"count": 8}}) or
    Scenario({"peers.count": 8}), or Scenario.load(path)."""

    def __init__(self, data=None, base_dir=None, _check=True):
        self.sections = {}
        self.path = None            # the file it was loaded from
        self.base_dir = os.path.abspath(base_dir or os.getcwd())
        self._loaded_text = None
        for k, v in (data or {}).items():
            if isinstance(v, dict):
                for kk, vv in v.items():
                    self._put("%s.%s" % (k, kk), vv)
            else:
                self._put(k, v)
        if _check:
            self.check()

    @classmethod
    def load(cls, path):
        s = cls(base_dir=os.path.dirname(os.path.abspath(path)), _check=False)
        s.path = path
        section = None
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                line = re.sub(r"(^|\s)#.*$", "", line).strip()
                if not line:
                    continue
                m = re.match(r"^\[(.+)\]$", line)
                if m:
                    section = m.group(1).strip()
                    s.sections.setdefault(section, {})
                elif "=" in line and section:
                    k, v = line.split("=", 1)
                    s.sections[section][k.strip()] = v.strip()
                else:
                    raise ScenarioError("%s:%d: not a [section] or key = value line" % (path, n))
        s._loaded_text = s.text()
        s.check()
        return s

    def _put(self, key, value):
        section, k = _split(key)
        self.sections.setdefault(section, {})[k] = _text(value)

    def get(self, key, default=None):
        section, k = _split(key)
        return self.sections.get(section, {}).get(k, default)

    def __getitem__(self, key):
        v = self.get(key)
        if v is None:
            raise KeyError(key)
        return v

    def items(self):
        """("section.key", value) in the file's order."""
        return [("%s.%s" % (s, k), v) for s, kv in self.sections.items() for k, v in kv.items()]

    def copy(self):
        c = Scenario(base_dir=self.base_dir, _check=False)
        c.sections = {s: dict(kv) for s, kv in self.sections.items()}
        c.path, c._loaded_text = self.path, self._loaded_text
        return c

    def set(self, key, value):
        """Sets section.key to value (a list is a sweep), checked by the
        binary; returns self.  A refused value leaves the scenario as it
        was and raises ScenarioError."""
        section, k = _split(key)
        if section not in FREE_SECTIONS:
            table = keys()
            if key not in table:
                known = [x.split(".", 1)[1] for x in table if x.startswith(section + ".")]
                why = ("keys of [%s]: %s" % (section, ", ".join(known))) if known else "no such section"
                raise ScenarioError("%s: [%s] %s: unknown key (%s)" % (self.name(), section, k, why))
        before = self.copy()
        self._put(key, value)
        try:
            self.check()
        except ScenarioError:
            self.sections = before.sections
            raise
        return self

    def sweep(self, key, values):
        """Sweeps section.key over values: the file's ${a, b, c}."""
        return self.set(key, list(values))

    def name(self):
        return self.path or self.get("scenario.name") or "scenario"

    def text(self, dir_key=None):
        out = []
        for s, kv in self.sections.items():
            out.append("[%s]" % s)
            for k, v in kv.items():
                if s == "scenario" and k == "dir" and dir_key is not None:
                    continue
                out.append("%s = %s" % (k, v))
            if s == "scenario" and dir_key is not None:
                out.append("dir = %s" % dir_key)
            out.append("")
        if dir_key is not None and "scenario" not in self.sections:
            out += ["[scenario]", "dir = %s" % dir_key, ""]
        return "\n".join(out)

    def _dir_for(self, folder):
        """scenario.dir for a file written in folder: the relative paths
        keep meaning what they meant here (None: no change needed)."""
        own = os.path.join(self.base_dir, self.get("scenario.dir", "") or "")
        folder = os.path.abspath(folder)
        if os.path.normpath(own) == os.path.normpath(folder) and not self.get("scenario.dir"):
            return None
        return os.path.relpath(own, folder)

    def write(self, path):
        """Writes the scenario file; its relative paths (traces, data, a
        guest's folder) are those of the scenario's own folder: written
        elsewhere, it gets a [scenario] dir that says so.  Returns path."""
        folder = os.path.dirname(os.path.abspath(path))
        d = self._dir_for(folder)
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.text(d))
        return path

    def unchanged(self):
        """True if this is a loaded file as it was loaded."""
        return self.path is not None and self._loaded_text == self.text()

    def check(self):
        """Loads the scenario through the binary; raises ScenarioError with
        its message (FILE: [section] key: why) if it refuses it."""
        with tempfile.TemporaryDirectory(prefix="dlsim-py-") as tmp:
            f = self.write(os.path.join(tmp, "scenario.ini"))
            try:
                call(["run", f, "-o", os.path.join(tmp, "x.db"), "-q", "--shard", "999999/1000000"])
            except DlsimError as e:
                msg = str(e).replace(f, self.name())
                msg = re.sub(r"^dlsim run: ", "", msg)
                raise ScenarioError(msg, e.status) from None

    def __repr__(self):
        return "Scenario(%r)" % dict(self.items())

    def __eq__(self, other):
        return isinstance(other, Scenario) and self.items() == other.items()
