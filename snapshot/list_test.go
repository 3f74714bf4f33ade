package snapshot

import (
	"errors"
	"strings"
	"testing"
)

// TestResolveRefusals covers the references Resolve refuses, each with an
// error saying why: callers tell a typo (ErrNotFound, ErrAmbiguous) from
// a failure.
func TestResolveRefusals(t *testing.T) {
	data := t.TempDir()
	a := publish(t, data, "")
	b := publish(t, data, a.ID)
	shared := 0 // ids made a moment apart share their time prefix
	for shared < len(a.ID) && a.ID[shared] == b.ID[shared] {
		shared++
	}
	if shared < minPrefix {
		t.Fatalf("ids %s and %s share only %d characters", a.ID, b.ID, shared)
	}
	for _, tc := range []struct {
		ref  string
		is   error
		want string
	}{
		{a.ID[:minPrefix-1], ErrNotFound, "an id prefix needs at least 4 characters"},
		{a.ID[:2], ErrNotFound, "an id prefix needs at least 4 characters"},
		{"ZZZZZZZZ", ErrNotFound, `no snapshot found: "ZZZZZZZZ"`},
		{a.ID[:shared], ErrAmbiguous, "matches 2 snapshots (" + a.ID + ", " + b.ID + "); give more of the id"},
	} {
		_, err := Resolve(data, tc.ref)
		if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Resolve(%q) = %v; want %v with %q", tc.ref, err, tc.is, tc.want)
		}
	}
	// A prefix is read in any case; a unique one resolves.
	for _, ref := range []string{strings.ToLower(b.ID[:shared+1]), b.ID[:shared+1], strings.ToLower(b.ID)} {
		if e, err := Resolve(data, ref); err != nil || e.ID != b.ID {
			t.Errorf("Resolve(%q) = %v, %v; want %s", ref, e.ID, err, b.ID)
		}
	}
}
