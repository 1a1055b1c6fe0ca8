"""This process's resident memory (Linux), for the tests and benchmarks that bound what a session keeps."""
from __future__ import annotations


def rss_mb() -> float:
    """Resident memory now, in MiB (0 where /proc is missing)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0
