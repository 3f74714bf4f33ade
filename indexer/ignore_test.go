package indexer

import "testing"

func TestIgnore(t *testing.T) {
	rules, err := compileIgnore([]string{"Templates/", "*.excalidraw.md", "Archive/**/old-*.md", "/Inbox/drafts"})
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
		if got := rules.match(p); got != want {
			t.Errorf("match(%q) = %v, want %v", p, got, want)
		}
	}
}
