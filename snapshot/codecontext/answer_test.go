package codecontext_test

import (
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/snapshot/codecontext"
)

func TestFitKeepsMustReadFirstLongest(t *testing.T) {
	entry := func(id string) codecontext.Entry {
		return codecontext.Entry{ID: id, Path: id, Why: []string{strings.Repeat("w", 80)}, Score: 1}
	}
	full := func() *codecontext.Answer {
		a := &codecontext.Answer{Snapshot: "s", Question: "q", Notice: codecontext.Notice}
		for i, b := range []*[]codecontext.Entry{&a.MustRead, &a.MayChange, &a.MustTest, &a.Knowledge, &a.Danger} {
			for j := range 2 {
				*b = append(*b, entry(strings.Repeat("x", i+1)+string(rune('a'+j))))
			}
		}
		return a
	}
	// Room for one entry of each bucket: every bucket keeps its first.
	one := full()
	for _, b := range []*[]codecontext.Entry{&one.MustRead, &one.MayChange, &one.MustTest, &one.Knowledge, &one.Danger} {
		*b = (*b)[:1]
	}
	one.Truncated, one.Omitted = true, 5
	a := full()
	a.Fit(one.Size() + 300)
	for name, b := range map[string][]codecontext.Entry{"must_read": a.MustRead, "may_change": a.MayChange, "must_test": a.MustTest, "knowledge": a.Knowledge, "danger": a.Danger} {
		if len(b) != 1 {
			t.Errorf("with room for one entry of each bucket, %s kept %d", name, len(b))
		}
	}
	// Room for little: must_read's first entry is the last to go.
	a = full()
	a.Fit(800)
	if len(a.MustRead) != 1 || a.MustRead[0].ID != "xa" {
		t.Errorf("a small budget kept must_read %v; want its first entry", a.MustRead)
	}
	if n := len(a.MayChange) + len(a.MustTest) + len(a.Knowledge) + len(a.Danger); n > 0 && a.Size() > 800 {
		t.Errorf("kept %d entries of other buckets over the budget", n)
	}
}
