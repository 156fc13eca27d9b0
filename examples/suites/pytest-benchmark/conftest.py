"""refbench runs this suite once per arm and round, so what pytest-benchmark
does once per process counts every round: the machine is recorded by
refbench, so skip its CPU probe (py-cpuinfo starts a subprocess, about a
second per run), and measure the timer's precision in 20 ms instead of its
full second."""
import platform
import time

from pytest_benchmark.fixture import BenchmarkFixture


def pytest_benchmark_generate_machine_info(config):
    return {"node": platform.node(), "machine": platform.machine(), "system": platform.system(),
            "python_implementation": platform.python_implementation(),
            "python_version": platform.python_version(), "cpu": {}}


def _timer_precision(timer, seconds=0.02):
    """The smallest positive step of timer seen in a loop of the given length."""
    step = None
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline or step is None:
        t1 = timer()
        t2 = timer()
        if t2 > t1:
            step = t2 - t1 if step is None else min(step, t2 - t1)
    return step


# pytest-benchmark keeps the precision of each timer it has measured in this
# dict (its default timer is time.perf_counter); an entry is not measured again
BenchmarkFixture._precisions.setdefault(time.perf_counter, _timer_precision(time.perf_counter))
