package format

import (
	"strings"
	"testing"
)

func TestEscapeGraphNames(t *testing.T) {
	got := EscapeGraphNames(GraphEdgeTablePrefix, []string{"depends_on", "mentored by", "knows", "Knows", "match", "Über", "", "knows", strings.Repeat("x", 60)})
	want := map[string]string{
		"depends_on":  "e_depends_on",
		"mentored by": "e_mentored_by_" + shortHash("mentored by"),
		"Knows":       "e_Knows",
		"knows":       "e_knows_" + shortHash("knows"),
		"match":       "e_match",
		"Über":        "e__ber_" + shortHash("Über"),
		"":            "e__" + shortHash(""),
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("escape %q = %q, want %q", name, got[name], w)
		}
	}
	long := got[strings.Repeat("x", 60)]
	if !strings.HasPrefix(long, "e_"+strings.Repeat("x", maxGraphName)+"_") || len(long) != 2+maxGraphName+9 {
		t.Errorf("long name escaped to %q", long)
	}
	seen := map[string]string{}
	for name, esc := range got {
		if prev, ok := seen[strings.ToLower(esc)]; ok {
			t.Errorf("%q and %q both escape to %q ignoring case", prev, name, esc)
		}
		seen[strings.ToLower(esc)] = name
	}
	if e := EscapeGraphNames(GraphEdgeTablePrefix, []string{"mentored by"}); e["mentored by"] != "e_mentored_by_93c49ec0" {
		t.Errorf("doc example changed: %q", e["mentored by"])
	}
}

func TestShadowedName(t *testing.T) {
	keys := map[string]bool{"_id": true, "id": true, "role": true}
	taken := func(s string) bool { return keys[s] }
	for key, want := range map[string]string{"id": "__id", "_id": "_id", "role": "role", "path": "_path"} {
		if got := ShadowedName(key, NoteBuiltins, taken); got != want {
			t.Errorf("ShadowedName(%q) = %q, want %q", key, got, want)
		}
	}
}
