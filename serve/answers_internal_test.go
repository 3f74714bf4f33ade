package serve

import (
	"fmt"
	"strings"
	"testing"
)

// TestAnswersEvictLeastRecentlyUsed: the cache stays within its budget by
// dropping the answer used longest ago, and keeps no answer larger than
// its share.
func TestAnswersEvictLeastRecentlyUsed(t *testing.T) {
	key := func(i int) answerKey {
		return answerKey{vault: "v", route: "/query", snapshot: "s", body: fmt.Sprintf("%03d", i)}
	}
	body := []byte(strings.Repeat("x", 100))
	per := key(0).cost() + len(body)
	a := newAnswers(per * answerShare) // room for exactly answerShare answers
	for i := range answerShare {
		a.put(key(i), body)
	}
	if _, ok := a.get(key(0)); !ok { // 0 is now the most recently used
		t.Fatal("answer 0 missing before the budget was reached")
	}
	a.put(key(answerShare), body)
	if _, ok := a.get(key(1)); ok {
		t.Error("answer 1, the least recently used, was kept past the budget")
	}
	for _, i := range []int{0, 2, answerShare} {
		if _, ok := a.get(key(i)); !ok {
			t.Errorf("answer %d was dropped", i)
		}
	}
	if a.bytes() > per*answerShare {
		t.Errorf("cache holds %d bytes, over its budget of %d", a.bytes(), per*answerShare)
	}
	a.put(key(-1), make([]byte, per*answerShare/answerShare+1))
	if _, ok := a.get(key(-1)); ok {
		t.Error("an answer larger than its share of the budget was kept")
	}
	if newAnswers(-1) != nil {
		t.Error("a negative budget should turn the cache off")
	}
}
