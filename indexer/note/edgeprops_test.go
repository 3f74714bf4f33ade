package note

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

// withoutPositions copies a node tree without lines and columns, which
// simpleFlowMap does not set.
func withoutPositions(n *yaml.Node) *yaml.Node {
	if n == nil {
		return nil
	}
	c := *n
	c.Line, c.Column = 0, 0
	c.Content = nil
	for _, k := range n.Content {
		c.Content = append(c.Content, withoutPositions(k))
	}
	return &c
}

// checkSimpleFlowMap fails when simpleFlowMap takes block but its tree is
// not the one yaml.v3 parses, or yaml.v3 fails on it.
func checkSimpleFlowMap(t *testing.T, block string) bool {
	t.Helper()
	got, ok := simpleFlowMap(block)
	if !ok {
		return false
	}
	var want yaml.Node
	if err := unmarshalYAML(block, &want); err != nil {
		t.Fatalf("simpleFlowMap(%q) took a block yaml.v3 rejects: %v", block, err)
	}
	if d := cmp.Diff(withoutPositions(&want), withoutPositions(got)); d != "" {
		t.Fatalf("simpleFlowMap(%q) (-yaml.v3 +got):\n%s", block, d)
	}
	return true
}

// TestSimpleFlowMap: the blocks simpleFlowMap takes parse to yaml.v3's
// trees, over keys and values of every type and spacing; it leaves the
// others to yaml.v3.
func TestSimpleFlowMap(t *testing.T) {
	keys := []string{"critical", "role", "a", "x1", "a_b", "a-b", "true", "null", "No", "Y", "inf"}
	values := []string{"true", "false", "True", "FALSE", "yes", "no", "on", "null", "Null", "0.5", "1e3", "1E-3", "120",
		"-5", "+5", ".5", "-.5", "0x1F", "0o17", "017", "0b101", "1_000", "+.inf", ".inf", ".NaN", "2024-01-15",
		"2024-01-15T10:00:00", "2024-01-15 10:00:00", "2024-1-5", "10:00", "1:2:3", "EUR", "engineer", "EUR x",
		"a - b", "a :b", "a/b", "v1.2.3", "1.5.2", "-", "+", "9223372036854775808", "-9223372036854775809",
		"18446744073709551616", "12:30:45.5", "a-", "x_y", "1 2", "0.", "-0", "+0.0e+0"}
	took := 0
	for _, k := range keys {
		for _, v := range values {
			for _, f := range []string{"{%k: %v}", "{ %k: %v }", "{%k:  %v}", "{%k: %v, other: 1}", "{%k: %v,other: x}",
				"{%k:%v}", "{%k : %v}", "{%k: %v,}", "{%k: %v, %k: 2}", "{%k: %v  }", "{%k: }", "{%k: %v:}"} {
				b := strings.ReplaceAll(strings.ReplaceAll(f, "%k", k), "%v", v)
				if checkSimpleFlowMap(t, b) {
					took++
				}
			}
		}
	}
	if took < len(keys)*len(values)*4 {
		t.Errorf("simpleFlowMap took only %d blocks", took)
	}
	for _, b := range []string{"{}", "{a: [x]}", "{a: \"q\"}", "{a: 'q'}", "{a: {b: 1}}", "{a: b # c}", "{a: &x 1}",
		"{a: *x}", "{? a: 1}", "{a: 1,, b: 2}", "{<<: 1}", "{a: é}", "{a:\t1}", "{a: 1}\n", "{a: ~}", "{a: !!str 1}"} {
		if _, ok := simpleFlowMap(b); ok {
			t.Errorf("simpleFlowMap took %q, which it should leave to yaml.v3", b)
		}
	}
}

func FuzzSimpleFlowMap(f *testing.F) {
	for _, s := range []string{"{critical: true}", "{weight: 0.5, role: lead}", "{a: 10:00}", "{a: 2024-01-15, b: x y}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, block string) { checkSimpleFlowMap(t, block) })
}
