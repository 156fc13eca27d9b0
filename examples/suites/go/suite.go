// Package suite is the work the go example's benchmarks measure.
package suite

// HashRounds runs n rounds of a multiply-xorshift hash.
func HashRounds(seed uint64, n int) uint64 {
	x := seed
	for i := 0; i < n; i++ {
		x ^= x >> 33
		x *= 0xff51afd7ed558ccd
	}
	return x
}

// Parse is the work the candidate ref (candidate.patch) makes 1.4x slower.
func Parse(seed uint64) uint64 { return HashRounds(seed, 20000) }
