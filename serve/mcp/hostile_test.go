package mcp

import (
	"strings"
	"testing"
)

func nestedList(depth int) any {
	var v any = 1
	for range depth {
		v = []any{v}
	}
	return v
}

// TestHostileArguments sends tool calls that must not reach the graph
// engine: a Cypher parameter nested 1,000 deep (which crashed it), one
// nested just past cypher's limit, and arguments too large or with too many
// values. Each is a tool error naming the limit, and the server keeps
// answering.
func TestHostileArguments(t *testing.T) {
	s := newServer(t, openStore(t, demoData(t)), Options{})
	c, _ := connect(t, s)
	many := make([]any, 60_000)
	for i := range many {
		many[i] = i
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{toolCypher, map[string]any{"query": "RETURN $p AS x", "params": map[string]any{"p": nestedList(1000)}}, "nested more than 34 lists or objects deep"},
		{toolCypher, map[string]any{"query": "RETURN $p AS x", "params": map[string]any{"p": nestedList(33)}}, "nested more than 34"},
		{toolCypher, map[string]any{"query": "RETURN size($p) AS x", "params": map[string]any{"p": many}}, "more than 50000 values"},
		{toolCypher, map[string]any{"query": "RETURN size($p) AS x", "params": map[string]any{"p": many[:12_000]}}, "more than 10000 values"},
		{toolCypher, map[string]any{"query": "RETURN $p AS x", "params": map[string]any{"p": strings.Repeat("x", 3<<20)}}, "more than the 2 MiB"},
		{toolSearch, map[string]any{"query": strings.Repeat("word ", 1<<19)}, "more than the 2 MiB"},
	} {
		msg := callErr(t, c, tc.tool, tc.args)
		if !strings.Contains(msg, tc.want) {
			t.Errorf("%s: error %q lacks %q", tc.tool, msg, tc.want)
		}
	}
	var out struct{ Rows [][]any }
	callOK(t, c, toolCypher, map[string]any{"query": "RETURN size($p) AS x", "params": map[string]any{"p": nestedList(30)}}, &out)
	if len(out.Rows) != 1 || out.Rows[0][0] != float64(1) {
		t.Errorf("a nested parameter within the limits: %v", out.Rows)
	}
}
