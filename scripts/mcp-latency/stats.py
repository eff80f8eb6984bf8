"""The one line each client prints."""


def percentile(samples: list[float], p: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def line(client: str, samples: list[float]) -> str:
    p50 = percentile(samples, 50) * 1000
    p99 = percentile(samples, 99) * 1000
    return f"{client} {p50:.2f} {p99:.2f}"
