package cypher

import (
	"errors"
	"strings"
	"testing"
)

// TestNameHints checks the advice added to syntax errors that look like a
// vault name written without the backquotes it needs, and that errors that
// are something else get none.
func TestNameHints(t *testing.T) {
	tests := []struct {
		src  string
		want string // "" for no hint
	}{
		// Names with spaces, in every place a name goes.
		{"MATCH (a)-[r:mentored by]->(b) RETURN a", "if \"mentored by\" is one name, backquote it: [r:`mentored by`]"},
		{"MATCH (a)-[:mentored by]->(b) RETURN a", "[:`mentored by`]"},
		{"MATCH (a)<-[r:knows|mentored by]-(b) RETURN a", "[r:knows|`mentored by`]"},
		{"MATCH (a)-[r:works with the team]->(b) RETURN a", "[r:`works with the team`]"},
		{"MATCH (a:Research Paper) RETURN a", "(a:`Research Paper`)"},
		{"MATCH (:Person:Research Paper)-->(b) RETURN b", "(:Person:`Research Paper`)"},
		{"MATCH (n) WHERE n:Research Paper RETURN n", "n:`Research Paper`"},
		{"MATCH (a) RETURN a.first name", "a.`first name`"},
		{"MATCH (a) WHERE a.first name = 1 RETURN a", "a.`first name`"},
		{"MATCH (a {x: 2, first name: 1}) RETURN a", "{`first name`: …}"},
		// Punctuation and digits inside a label or type.
		{"MATCH (a)-[r:depends-on]->(b) RETURN a", "if \"depends-on\" is one name, backquote it: [r:`depends-on`]"},
		{"MATCH (a)-[r:depends-on*1..2]->(b) RETURN a", "[r:`depends-on`]"},
		{"MATCH (n:my-label) RETURN n", "(n:`my-label`)"},
		{"MATCH (a)-[r:v1.2]->(b) RETURN a", "[r:`v1.2`]"},
		// Quotes instead of backquotes.
		{"MATCH (n)-[r:'mentored by']->(m) RETURN n", "names are written in backquotes, not quotes: [r:`mentored by`]"},
		{"MATCH (n:\"Person\") RETURN n", "(n:`Person`)"},
		{"MATCH (n) RETURN n.'title'", "n.`title`"},
		// Keywords as variables.
		{"MATCH (order:Project) RETURN order", "ORDER is a keyword: to use it as a variable, backquote it (`order`)"},
		{"MATCH (a)-[order:knows]->(b) RETURN a", "ORDER is a keyword"},
		{"UNWIND [1] AS order RETURN order", "ORDER is a keyword"},
		{"WITH 1 AS order RETURN order", "ORDER is a keyword"},
		// Other mistakes: no hint.
		{"MATCH (p:Person RETURN p", ""},
		{"MATCH (a)-[r:knows RETURN a", ""},
		{"MATCH (a)-[r:KNOWS WHERE r.x = 1]->(b) RETURN a", ""},
		{"MATCH (a)-[r:mentored\nby]->(b) RETURN a", ""},
		{"MATCH (a)-[r:mentored /* c */ by]->(b) RETURN a", ""},
		{"MATCH (a)-[r:a-]->(b) RETURN a", ""},
		{"MATCH (p)\nRETURN p.title,\nLIMIT 3", ""},
		{"MATCH (n) RETURN n.title LIMIT", ""},
		{"MATCH (n {a 1}) RETURN n", ""},
		{"RETURN order", ""},
		{"MATCH (n) RETURN n ORDER n.title", ""},
	}
	for _, tc := range tests {
		_, err := Parse(tc.src)
		var e *Error
		if !errors.As(err, &e) || e.Kind != KindSyntax {
			t.Errorf("Parse(%q) = %v, want a syntax error", tc.src, err)
			continue
		}
		hinted := strings.Contains(e.Message, "backquote")
		switch {
		case tc.want == "" && hinted:
			t.Errorf("Parse(%q): unexpected hint in %q", tc.src, e.Message)
		case tc.want != "" && !strings.Contains(e.Message, tc.want):
			t.Errorf("Parse(%q):\n got %q\nwant it to contain %q", tc.src, e.Message, tc.want)
		}
	}
}
