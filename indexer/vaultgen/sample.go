package vaultgen

import (
	"math"
	"math/rand/v2"
	"sort"
)

// zipf draws ranks 0..n-1 with probability proportional to 1/(rank+1)^s.
// Unlike rand.Zipf it accepts s <= 1, the range real link graphs live in,
// and its output is fixed by this code rather than by the Go release.
type zipf []float64 // cumulative weights

func newZipf(n int, s float64) zipf {
	c := make(zipf, n)
	total := 0.0
	for i := range c {
		total += math.Pow(float64(i+1), -s)
		c[i] = total
	}
	return c
}

func (z zipf) draw(r *rand.Rand) int {
	u := r.Float64() * z[len(z)-1]
	i := sort.SearchFloat64s(z, u)
	return min(i, len(z)-1)
}

// logNormal draws a size with the given mean and a long right tail:
// sigma 0.8 puts the median at about 73% of the mean and one note in a few
// hundred above seven times the mean.
func logNormal(r *rand.Rand, mean float64) int {
	const sigma = 0.8
	mu := math.Log(mean) - sigma*sigma/2
	v := math.Exp(mu + sigma*r.NormFloat64())
	return int(min(v, 40*mean))
}

// pick returns a uniformly chosen element of s.
func pick[T any](r *rand.Rand, s []T) T { return s[r.IntN(len(s))] }

// chance reports true with probability p.
func chance(r *rand.Rand, p float64) bool { return r.Float64() < p }
