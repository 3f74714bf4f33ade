package spell

import "testing"

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{
		{"", "", 0}, {"a", "", 1}, {"types", "types", 0}, {"tpyes", "types", 1}, {"type", "types", 1},
		{"edgetype", "edgetypes", 1}, {"kitten", "sitting", 3}, {"ab", "ba", 1}, {"é", "e", 1},
	} {
		if d := Distance(tc.a, tc.b, 64); d != tc.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, d, tc.d)
		}
		if d := Distance(tc.b, tc.a, 64); d != tc.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.b, tc.a, d, tc.d)
		}
	}
	// Past the limit the answer is limit+1, whatever the distance.
	if d := Distance("kitten", "sitting", 1); d != 2 {
		t.Errorf("Distance(kitten, sitting, 1) = %d, want 2", d)
	}
	if d := Distance("a", "abcdef", 2); d != 3 {
		t.Errorf("Distance(a, abcdef, 2) = %d, want 3", d)
	}
}

func TestFold(t *testing.T) {
	for in, want := range map[string]string{"edge_types": "edgetypes", "edgeTypes": "edgetypes", "Edge Types": "edgetypes", "max-depth": "maxdepth"} {
		if got := Fold(in); got != want {
			t.Errorf("Fold(%q) = %q, want %q", in, got, want)
		}
	}
}
