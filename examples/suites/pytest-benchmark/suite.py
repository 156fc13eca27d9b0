"""The work the pytest-benchmark example measures."""


def hash_rounds(seed, n):
    """n rounds of a multiply-xorshift hash, kept to 64 bits."""
    x = seed
    for _ in range(n):
        x ^= x >> 33
        x = (x * 0xFF51AFD7ED558CCD) & 0xFFFFFFFFFFFFFFFF
    return x


def parse(seed):
    """The work the candidate ref (candidate.patch) makes 1.4x slower."""
    return hash_rounds(seed, 2000)
