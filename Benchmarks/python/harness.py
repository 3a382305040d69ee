"""What the decode-benchmark runners share: running one contender and reading its report."""
import re
import subprocess


def run(cmd):
    """Runs `cmd`; returns (median wall ms, median CPU ms, pixel hash or None), or None if it failed."""
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        return None
    fields = dict(re.findall(r"(\w+)=(\S+)", out.stdout))
    return float(fields["median_ms"]), float(fields["cpu_ms"]), fields.get("fnv")
