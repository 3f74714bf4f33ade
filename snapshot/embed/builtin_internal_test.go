package embed

import (
	"math"
	"testing"
)

// TestCounterMatchesMap checks the feature counter against a map, through
// a whole embedding: the hashed vector must be what counting with a map
// gives.
func TestCounterMatchesMap(t *testing.T) {
	texts := []string{
		"Note: Acme\n\nAcme funds Acme funds acme FUNDS the the the search search",
		"Straße Größe naïve café 東京は日本の首都です",
		"",
	}
	for _, text := range texts {
		fz := newFeaturizer()
		text = fz.runes.nfkc(text)
		got := make([]float32, 64)
		fz.embed(text, got)

		ref := newFeaturizer()
		ref.extract(text)
		want := make([]float32, 64)
		for _, grp := range []struct {
			feats []uint64
			w     float32
		}{{ref.words, weightWords}, {ref.bigrams, weightBigrams}, {ref.grams, weightGrams}} {
			counts := map[uint64]int{}
			for _, h := range grp.feats {
				if h == 0 {
					h = 1
				}
				counts[h]++
			}
			g := make([]float32, 64)
			for h, n := range counts {
				v := float32(1 + math.Log(float64(n)))
				if h&1 == 1 {
					v = -v
				}
				g[(h>>32)*64>>32] += v
			}
			if normalize(g) {
				for i := range g {
					want[i] += grp.w * g[i]
				}
			}
		}
		normalize(want)
		for i := range got {
			if math.Abs(float64(got[i]-want[i])) > 1e-5 {
				t.Fatalf("%.20q: component %d = %v, map counting gives %v", text, i, got[i], want[i])
			}
		}
	}
}
