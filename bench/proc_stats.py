"""What the benchmarks read of a server process from /proc: CPU time and resident memory."""
import os

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    """User + system CPU time of process `pid` so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def status_mb(pid, field):
    """A memory figure of /proc/<pid>/status in MB: "VmRSS" (resident now) or "VmHWM" (the
    largest resident size so far)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")


def rss_mb(pid):
    """Resident set size of process `pid` in MB."""
    return status_mb(pid, "VmRSS")


def peak_rss_mb(pid):
    """Largest resident set size process `pid` has had, in MB."""
    return status_mb(pid, "VmHWM")
