package suite

import (
	"fmt"
	"testing"
)

var sink uint64
var kept []uint64

func BenchmarkParse(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink += Parse(uint64(i))
	}
}

func BenchmarkEncode(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink += HashRounds(uint64(i), 15000)
	}
}

func BenchmarkAlloc(b *testing.B) {
	for i := 0; i < b.N; i++ {
		kept = make([]uint64, 64)
		kept[0] = HashRounds(uint64(i), 5000)
	}
}

func BenchmarkSort(b *testing.B) {
	for _, size := range []int{64, 512} {
		b.Run(fmt.Sprintf("size=%d", size), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				sink += HashRounds(uint64(i), size*20)
			}
			b.ReportMetric(float64(size), "keys/op")
		})
	}
}
