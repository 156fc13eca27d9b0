"""refbench runs this suite once per arm and round: the machine is
recorded by refbench, so skip pytest-benchmark's CPU probe (py-cpuinfo
starts a subprocess, about a second per run)."""
import platform


def pytest_benchmark_generate_machine_info(config):
    return {"node": platform.node(), "machine": platform.machine(), "system": platform.system(),
            "python_implementation": platform.python_implementation(),
            "python_version": platform.python_version(), "cpu": {}}
