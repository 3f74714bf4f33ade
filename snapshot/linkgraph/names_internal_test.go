package linkgraph

import (
	"strings"
	"testing"
)

// TestWordsKey: the name index's ASCII fast path folds names as
// foldWords does.
func TestWordsKey(t *testing.T) {
	for _, s := range []string{"", "  ", "Order Model Part", "order-model_PART 2", "A/B.md", "x", "Zoë's Über-Ranking", "ÅB c", "p95 latency, 2026!", "--a--b--", "MiXeD CaSe9Z"} {
		w := foldWords(s)
		key, n := wordsKey(s, nil)
		if key != strings.Join(w, " ") || n != len(w) {
			t.Errorf("wordsKey(%q) = %q, %d; foldWords gives %q", s, key, n, w)
		}
	}
}
