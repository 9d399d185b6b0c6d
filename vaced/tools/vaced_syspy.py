"""Debian's Python packages (python3-otf2, python3-matplotlib) from any
interpreter: `vaced` may run under another Python (a virtual environment,
pyenv) that lacks them, while Debian installs them for /usr/bin/python3.
A module that needs one asks here which interpreter has it, and runs
itself there as a script when it is not this one.  Standard library only.
"""
import importlib.util
import os
import subprocess
import sys

SYSTEM_PYTHON = "/usr/bin/python3"


class Failure(Exception):
    """What a module needs cannot be had or done; the message says why."""


def python_with(module):
    """'here' if this interpreter can import `module`, else the path of
    the system's interpreter if it can, else None."""
    try:
        if importlib.util.find_spec(module) is not None:
            return "here"
    except (ImportError, ValueError):
        pass
    if os.access(SYSTEM_PYTHON, os.X_OK) and \
            os.path.realpath(SYSTEM_PYTHON) != os.path.realpath(sys.executable):
        r = subprocess.run([SYSTEM_PYTHON, "-c", "import " + module],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if r.returncode == 0:
            return SYSTEM_PYTHON
    return None


def interpreter(module, need, package):
    """python_with(module), or Failure: `need` (what needs the module),
    which interpreters lack it and the package to install."""
    how = python_with(module)
    if how is None:
        raise Failure(f"{need}, which neither {sys.executable} nor {SYSTEM_PYTHON} can import: "
                      f"apt-get install {package}")
    return how


def writable_dir(d):
    """Creates directory d if missing; Failure if it cannot or d is not
    writable."""
    try:
        os.makedirs(d, exist_ok=True)
    except OSError as e:
        raise Failure(f"{d}: cannot create the directory: {e.strerror}")
    if not os.access(d, os.W_OK | os.X_OK):
        raise Failure(f"{d}: the directory is not writable")


def run_script(python, script, args):
    """Runs `script` with `args` under `python`, without writing bytecode
    beside it; its output, stripped.  Failure with its last line (or its
    status) if it fails."""
    r = subprocess.run([python, "-B", script] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    out = r.stdout.strip()
    if r.returncode != 0:
        raise Failure(out.splitlines()[-1] if out else f"{python} failed ({r.returncode})")
    return out
