//! The work the criterion example's benchmarks measure.

/// Runs `n` rounds of a multiply-xorshift hash.
pub fn hash_rounds(seed: u64, n: u64) -> u64 {
    let mut x = seed;
    for _ in 0..n {
        x ^= x >> 33;
        x = x.wrapping_mul(0xff51afd7ed558ccd);
    }
    x
}

/// The work the candidate ref (candidate.patch) makes 1.4x slower.
pub fn parse(seed: u64) -> u64 {
    hash_rounds(seed, 20000)
}
