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


def run_script(python, script, args):
    """Runs `script` with `args` under `python`, without writing bytecode
    beside it; (exit status, its output)."""
    r = subprocess.run([python, "-B", script] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    return r.returncode, r.stdout
