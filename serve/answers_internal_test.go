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

// TestAnswersAdmitTheSecondComputation: an answer is admitted the second
// time its key is computed, not the first, nor once it is held; a key
// computed once is forgotten after two generations of other keys.
func TestAnswersAdmitTheSecondComputation(t *testing.T) {
	key := func(i int) answerKey {
		return answerKey{vault: "v", route: "/retrieve", snapshot: "s", body: fmt.Sprintf("%d", i)}
	}
	a := newAnswers(1 << 20)
	if a.admit(key(0)) {
		t.Fatal("an answer computed for the first time was admitted")
	}
	if !a.admit(key(0)) {
		t.Fatal("an answer computed the second time was not admitted")
	}
	a.put(key(0), []byte("answer"))
	if a.admit(key(0)) {
		t.Error("an answer the cache holds was admitted again")
	}
	// Within the generation before, a key is still remembered.
	if a.admit(key(1)) {
		t.Fatal("key 1 admitted at its first computation")
	}
	for i := range seenGeneration {
		if a.admit(key(1000 + i)) {
			t.Fatalf("key %d admitted at its first computation", 1000+i)
		}
	}
	if !a.admit(key(1)) {
		t.Error("a key computed once, one generation ago, was forgotten")
	}
	// Two generations later it is forgotten.
	if a.admit(key(2)) {
		t.Fatal("key 2 admitted at its first computation")
	}
	for i := range 2 * seenGeneration {
		a.admit(key(100000 + i))
	}
	if a.admit(key(2)) {
		t.Error("a key computed once, two generations ago, was still remembered")
	}
	if n := len(a.seen) + len(a.seenBefore); n > 2*seenGeneration {
		t.Errorf("remembers %d keys, more than two generations of %d", n, seenGeneration)
	}
}
