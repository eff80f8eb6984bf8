"""The one line each client prints, and the timing of its calls."""

import contextlib
import time
from collections.abc import Iterator


class Timer:
    """Times each call made under `timer.call(i)`; keeps the times of all but the first `warmup`."""

    def __init__(self, warmup: int) -> None:
        self.warmup = warmup
        self.samples: list[float] = []

    @contextlib.contextmanager
    def call(self, i: int) -> Iterator[None]:
        start = time.perf_counter()
        yield
        took = time.perf_counter() - start
        if i >= self.warmup:
            self.samples.append(took)


def percentile(samples: list[float], p: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def line(client: str, samples: list[float]) -> str:
    p50 = percentile(samples, 50) * 1000
    p99 = percentile(samples, 99) * 1000
    return f"{client} {p50:.2f} {p99:.2f}"
