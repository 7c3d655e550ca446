#!/usr/bin/env python3
"""Where a server's CPU time went, from a `perf record -g` of it: the share of its samples in
each part, by the function a sample was taken in (and, in the kernel, what called it):

  kernel: waking a reader   sending on loopback delivers to the receiving socket in the
                            sender's system call, and waking the receiver's sleeping thread
                            (sock_def_readable) is dear on a paravirtualised machine: the
                            slower a server answers, the more often the client is asleep
  kernel: the rest          system calls, TCP, scheduling, page faults
  RocksDB, Beast and Asio, ddbd   by C++ namespace
  C and C++ runtime         libc, libstdc++, the allocator
  other                     anything else (frames without symbols)

Used by bench/items.py --perf; on its own:
  bench/perf_split.py PERF_DATA [MICROSECONDS]   (the shares as µs of MICROSECONDS when given)
Needs: perf.
"""
import collections
import subprocess
import sys

PARTS = ["kernel: waking a reader", "kernel: the rest", "RocksDB", "Beast and Asio", "ddbd",
         "C and C++ runtime", "other"]
RUNTIMES = ("libc.so", "libstdc++", "libjemalloc", "libm.so", "ld-linux")


def part_of(frames):
    """The part a sample belongs to; `frames` are its (symbol, library) pairs, innermost first."""
    symbol, library = frames[0]
    if library == "[kernel.kallsyms]":
        if any(s == "sock_def_readable" for s, _ in frames):
            return "kernel: waking a reader"
        return "kernel: the rest"
    for namespace, part in (("rocksdb::", "RocksDB"), ("boost::", "Beast and Asio"),
                            ("ddbd::", "ddbd")):
        if namespace in symbol:
            return part
    if any(runtime in library for runtime in RUNTIMES):
        return "C and C++ runtime"
    return "other"


def samples(perf_data):
    """Each sample's frames, innermost first, from `perf script`."""
    output = subprocess.run(["perf", "script", "-F", "ip,sym,dso", "-i", perf_data],
                            capture_output=True, text=True, check=True).stdout
    frames = []
    for line in output.splitlines() + [""]:
        line = line.strip()
        if not line:
            if frames:
                yield frames
            frames = []
            continue
        # "<ip> <symbol> (<library>)"; the symbol may hold spaces, the library is last.
        _, _, rest = line.partition(" ")
        symbol, _, library = rest.rpartition(" (")
        frames.append((symbol, library.rstrip(")")))


def split(perf_data):
    """Each part's share of the samples in `perf_data`, in PARTS order (0 for none)."""
    counts = collections.Counter(part_of(frames) for frames in samples(perf_data))
    total = sum(counts.values()) or 1
    return {part: counts[part] / total for part in PARTS}


def main():
    shares = split(sys.argv[1])
    scale = float(sys.argv[2]) if len(sys.argv) > 2 else None
    for part in PARTS:
        figure = f"{shares[part] * scale:.1f} µs" if scale else ""
        print(f"{part:26} {shares[part] * 100:5.1f} %  {figure}")


if __name__ == "__main__":
    main()
