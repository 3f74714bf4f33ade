package glob

import "testing"

func TestIgnore(t *testing.T) {
	rules, err := Compile([]string{"Templates/", "*.excalidraw.md", "Archive/**/old-*.md", "/Inbox/drafts"})
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]bool{
		"Templates":                    true,
		"Templates/Daily.md":           true,
		"Projects/Templates/x.md":      true,
		"Drawing.excalidraw.md":        true,
		"Art/Drawing.excalidraw.md":    true,
		"Archive/old-a.md":             true,
		"Archive/2020/q1/old-b.md":     true,
		"Archive/new.md":               false,
		"Inbox/drafts/x.md":            true,
		"Inbox/x.md":                   false,
		"Projects/Search.md":           false,
		"MyTemplates/x.md":             false,
		"Notes/Templates-and-more.md":  false,
		"Archive/2020/q1/older-b.md.x": false,
	}
	for p, want := range tests {
		if got := rules.Match(p); got != want {
			t.Errorf("match(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestWhichNamesThePattern(t *testing.T) {
	s, err := Compile([]string{"docs/", "backend_*.go"})
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{
		"docs/a/b.md":        "docs/",
		"x/backend_linux.go": "backend_*.go",
		"fsnotify.go":        "",
	} {
		if got := s.Which(p); got != want {
			t.Errorf("Which(%q) = %q, want %q", p, got, want)
		}
	}
}
