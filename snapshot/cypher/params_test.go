package cypher

import (
	"fmt"
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

// TestParamLimits checks the bounds on parameter values: a list nested
// 1,000 deep (which crashes the engine's parser), too many values and too
// many bytes are refused naming the parameter and the limit, before
// anything is printed; values at the limits translate.
func TestParamLimits(t *testing.T) {
	many := make([]any, MaxParamItems)
	for i := range many {
		many[i] = i
	}
	wide := map[string]any{}
	for i := range MaxParamItems {
		wide[fmt.Sprint(i)] = true
	}
	for _, c := range []struct {
		name   string
		params map[string]any
		want   string // "" = accepted
	}{
		{"depth 1000", map[string]any{"p": nestedList(1000)}, "nested more than 32"},
		{"depth 33", map[string]any{"p": nestedList(MaxParamDepth + 1)}, "nested more than 32"},
		{"depth 32", map[string]any{"p": nestedList(MaxParamDepth)}, ""},
		{"nested maps", map[string]any{"p": func() any {
			var v any = 1
			for range 40 {
				v = map[string]any{"a": v}
			}
			return v
		}()}, "$p is nested"},
		{"Go slices", map[string]any{"p": [][][]int{{{1}}}}, ""},
		{"too many items", map[string]any{"p": many}, "more than 10000 values"},
		{"too many map entries", map[string]any{"q": wide}, "at $q"},
		{"items of two parameters", map[string]any{"a": many[:MaxParamItems/2], "b": many[:MaxParamItems/2]}, "more than 10000 values"},
		{"too many bytes", map[string]any{"s": strings.Repeat("x", MaxParamBytes+1)}, "larger than 1 MiB"},
		{"bytes of a []string", map[string]any{"s": []string{strings.Repeat("x", MaxParamBytes/2), strings.Repeat("y", MaxParamBytes/2+1)}}, "larger than 1 MiB"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Compile("RETURN 1 AS one", fixtureGraph(), c.params, Options{})
			if c.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if KindOf(err) != KindParameter || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want a parameter error saying %q", err, c.want)
			}
		})
	}
}
