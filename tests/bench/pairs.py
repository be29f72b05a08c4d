#!/usr/bin/python3
"""Times two commands in alternated pairs, for ratios on a shared, loaded machine.

usage: pairs.py PAIRS WARMUP NAME_A NAME_B -- CMD_A... -- CMD_B...

Each pair runs A and B back to back (A first in even pairs, B first in odd ones, so neither
always finds the caches the other warmed), after WARMUP unrecorded pairs. A run is the wall time
from posix_spawn to waitpid, stdout and stderr to /dev/null, like hyperfine -N: no shell. Load
from other processes then hits both commands of a pair alike, and the ratio of each pair is
steadier than the ratio of two separate series. Prints one markdown row: the medians and minimums
of A and B, the median of the pairs' ratios B/A, the ratio of the medians, and the same median
ratio of the CPU time each command used (user + system, from wait4's rusage: what the load
hardly changes). A command that fails stops the run (exit 1); PAIRS_OK_EXIT lists the exit
codes that count as success (default "0"; check-compute answers 1 for a GPU that is not ready).
"""

import os
import statistics
import sys
import time


OK_EXIT = {int(c) for c in os.environ.get("PAIRS_OK_EXIT", "0").split(",")}


def run_once(argv):
    """(wall ms, CPU ms) of one run."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        actions = [(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)]
        start = time.perf_counter_ns()
        pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=actions)
        _, status, usage = os.wait4(pid, 0)
        elapsed = time.perf_counter_ns() - start
    finally:
        os.close(devnull)
    if os.waitstatus_to_exitcode(status) not in OK_EXIT:
        sys.exit(f"pairs.py: {' '.join(argv)} failed ({os.waitstatus_to_exitcode(status)})")
    return elapsed / 1e6, (usage.ru_utime + usage.ru_stime) * 1e3


def main():
    args = sys.argv[1:]
    if len(args) < 7 or args[4] != "--" or "--" not in args[5:]:
        sys.exit(__doc__)
    pairs, warmup, name_a, name_b = int(args[0]), int(args[1]), args[2], args[3]
    split = args.index("--", 5)
    cmd_a, cmd_b = args[5:split], args[split + 1:]
    a_times, b_times, a_cpu, b_cpu = [], [], [], []
    for i in range(warmup + pairs):
        if i % 2 == 0:
            a, b = run_once(cmd_a), run_once(cmd_b)
        else:
            b, a = run_once(cmd_b), run_once(cmd_a)
        if i >= warmup:
            a_times.append(a[0])
            b_times.append(b[0])
            a_cpu.append(a[1])
            b_cpu.append(b[1])
    ratios = [b / a for a, b in zip(a_times, b_times)]
    # rusage counts in clock ticks on some kernels: a run of 0 CPU ms gives no ratio.
    cpu_ratios = [b / a for a, b in zip(a_cpu, b_cpu) if a > 0]
    med_a, med_b = statistics.median(a_times), statistics.median(b_times)
    cpu_ratio = f"{statistics.median(cpu_ratios):.2f}" if cpu_ratios else "-"
    print(f"| {name_b} / {name_a} | {pairs} | {med_a:.2f} | {med_b:.2f} | {min(a_times):.2f} | {min(b_times):.2f} "
          f"| **{statistics.median(ratios):.2f}** | {med_b / med_a:.2f} "
          f"| {statistics.median(a_cpu):.2f} | {statistics.median(b_cpu):.2f} | {cpu_ratio} |")


if __name__ == "__main__":
    main()
