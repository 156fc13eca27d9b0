import pytest

from suite import hash_rounds, parse


def test_parse(benchmark):
    benchmark(parse, 1)


def test_encode(benchmark):
    benchmark(hash_rounds, 2, 1500)


@pytest.mark.parametrize("size", [100, 800])
def test_sort(benchmark, size):
    benchmark(sorted, [hash_rounds(i, 2) for i in range(size)])
