"""How Lathe's benchmarks report times: the median of N runs with the
spread (min..max, and the half-range as a percentage of the median), and
ratios as the median of per-run ratios (runs of the two sides alternate, so
each pair saw similar machine load). Every benchmark checks every run's
output and exits non-zero on a mismatch (`fail`)."""
import statistics
import sys


def median(xs):
    return statistics.median(xs)


def spread(xs):
    """Half of max - min, relative to the median (0.05 = +-5 %)."""
    m = median(xs)
    return (max(xs) - min(xs)) / 2 / m if m else 0.0


def describe(xs, unit="s", scale=1.0, fmt="{:.3f}"):
    """`median 1.234 s (1.200..1.300, +-4 %, n=5)`."""
    f = lambda v: fmt.format(v * scale)  # noqa: E731
    return (f"median {f(median(xs))} {unit} ({f(min(xs))}..{f(max(xs))}, "
            f"+-{spread(xs) * 100:.0f} %, n={len(xs)})")


def ratio(peer_times, lathe_times):
    """Median and range of the per-run ratios peer / lathe."""
    rs = [p / l for p, l in zip(peer_times, lathe_times)]
    return f"{median(rs):.1f}x (per-run {min(rs):.1f}x..{max(rs):.1f}x, n={len(rs)})"


def fail(msg):
    """Reports a mismatch and exits with status 1."""
    print(f"MISMATCH: {msg}", file=sys.stderr, flush=True)
    sys.exit(1)
