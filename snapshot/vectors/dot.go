package vectors

import (
	"math"

	"github.com/viterin/vek/vek32"
)

// Dot returns the dot product of two vectors of equal length: the cosine
// similarity of unit vectors. It uses AVX2 where the CPU has it.
func Dot(a, b []float32) float32 {
	return vek32.Dot(a, b)
}

// distance is the graph's distance between unit vectors.
func distance(a, b []float32) float32 {
	return 1 - vek32.Dot(a, b)
}

// Normalize scales v to unit length in place and reports whether it could:
// a zero or non-finite vector is left as it is.
func Normalize(v []float32) bool {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 || math.IsInf(s, 0) || math.IsNaN(s) {
		return false
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
	return true
}
