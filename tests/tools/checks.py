"""Pass/fail counting for the Python tests of tests/tools, ending in the
suite's "N passed, M failed" line (the shell scripts' check.sh)."""
import sys

counts = {"passed": 0, "failed": 0}


def check(name, ok, detail=""):
    """Counts a check and returns whether it passed (a test may go on only then)."""
    ok = bool(ok)
    print(("ok   " if ok else "FAIL ") + name + (f" ({detail})" if detail else ""))
    counts["passed" if ok else "failed"] += 1
    return ok


def finish():
    print(f"{counts['passed']} passed, {counts['failed']} failed")
    sys.exit(1 if counts["failed"] else 0)
