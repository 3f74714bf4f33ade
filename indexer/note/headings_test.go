package note

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestATXHeadings(t *testing.T) {
	tests := []struct {
		in    string
		level int
		title string
		ok    bool
	}{
		{"# Title", 1, "Title", true},
		{"###### Six", 6, "Six", true},
		{"####### Seven", 0, "", false},
		{"   ## Indented", 2, "Indented", true},
		{"    # Code indent", 0, "", false},
		{"## Closed ##", 2, "Closed", true},
		{"## C# is a language", 2, "C# is a language", true},
		{"## Ends with#", 2, "Ends with#", true},
		{"#", 1, "", true},
		{"#tag", 0, "", false},
		{"#\tTab", 1, "Tab", true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			level, start, ok := atxHeading(tc.in)
			title := ""
			if ok {
				title = headingTitle(tc.in[start:])
			}
			if level != tc.level || title != tc.title || ok != tc.ok {
				t.Errorf("got %d %q %v, want %d %q %v", level, title, ok, tc.level, tc.title, tc.ok)
			}
		})
	}
}

func TestHeadingPath(t *testing.T) {
	var h headingPath
	var got []string
	for _, step := range []struct {
		level int
		title string
	}{{2, "A"}, {3, "B"}, {5, "C"}, {3, "D"}, {1, "E"}, {2, ""}, {2, "F"}} {
		h.enter(step.level, step.title)
		got = append(got, h.String())
	}
	want := []string{"A", "A > B", "A > B > C", "A > D", "E", "E", "E > F"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
