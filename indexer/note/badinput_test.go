package note

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vaultgraph/vaultgraph/format"
)

func TestInvalidUTF8(t *testing.T) {
	in := "# Title\nok line\nbad \xff\xfe byte [[A\xc3]]\nmore \xe2\x82 [[B]]"
	p := Parse(testPath, []byte(in), Options{})
	if err := checkParsed(testPath, []byte(in), Options{}, p); err != nil {
		t.Fatal(err)
	}
	if !utf8.ValidString(p.Content) || !strings.Contains(p.Content, "bad \uFFFD\uFFFD byte") {
		t.Errorf("content = %q", p.Content)
	}
	if len(p.Warnings) != 1 || p.Warnings[0].Kind != format.WarnInvalidUTF8 || p.Warnings[0].Line != 3 {
		t.Errorf("warnings = %+v, want one invalid-utf8 at line 3", p.Warnings)
	}
	diffLinks(t, p.Links, links(
		format.Link{Target: "A\uFFFD", Heading: "Title", Line: 3},
		format.Link{Target: "B", Heading: "Title", Line: 4}))
}

func TestNoCrashOnOddInput(t *testing.T) {
	tests := map[string]string{
		"NUL bytes":               "a\x00b [[A\x00]] #t\x00ag\n\x00\x00\x00",
		"only NUL":                "\x00",
		"CR only":                 "\r\r\r[[A]]\r",
		"CRLF everywhere":         "---\r\ntitle: T\r\n---\r\n# H\r\nk:: [[A]]\r\n\r\ntext\r\n",
		"lone fence":              "```",
		"lone frontmatter fence":  "---",
		"two fences only":         "---\n---",
		"brackets":                strings.Repeat("[", 1000) + strings.Repeat("]", 999),
		"parens":                  strings.Repeat("[a](", 1000),
		"backticks":               strings.Repeat("` `` ``` ", 500),
		"comment openers":         strings.Repeat("%% <!-- $$ ", 300),
		"field markers":           strings.Repeat("[a:: (b:: ", 500),
		"hashes":                  strings.Repeat("#", 5000) + " #" + strings.Repeat("a", 5000),
		"deep YAML":               "---\na: " + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "\n---\n",
		"deep YAML maps":          "---\na: " + strings.Repeat("{a: ", 3000) + "1" + strings.Repeat("}", 3000) + "\n---\n",
		"recursive YAML alias":    "---\na: &a [*a, *a]\nb: *a\n---\n",
		"YAML tags":               "---\na: !!binary aGVsbG8=\nb: !custom x\nc: !!set {a, b}\n---\n",
		"YAML complex keys":       "---\n? [a, b]\n: c\n{x: 1}: y\n---\n",
		"edge props anchors":      "k:: [[A]] {a: &x 1, b: *x, <<: {c: 2}}",
		"BOM and heading":         "\uFEFF# Title\n[[A]]",
		"huge number":             "---\nn: 1" + strings.Repeat("0", 400) + "\n---\nk:: 1" + strings.Repeat("0", 400),
		"markdown link to root":   "[x](/) [y](/..) [z](./) [w](..)",
		"percent in link":         "[x](%) [y](%zz) [z](%00.md)",
		"unterminated everything": "```\n%%\n<!--\n$$\n[[",
	}
	for name, in := range tests {
		t.Run(name, func(t *testing.T) {
			parse(t, in)
			parseWith(t, "a.md", in, Options{ChunkChars: 7})
		})
	}
}

// hugeInputs are notes built to make a careless parser quadratic. The
// test checks the invariants of what they parse into; BenchmarkHugeInput measures how long
// that takes (a wall-clock bound here would fail on a busy machine).
func hugeInputs() map[string]string {
	return map[string]string{
		"single line":  strings.Repeat("word [[Link]] #tag `code` ", 200000),
		"no newline":   strings.Repeat("x", 5<<20),
		"brackets":     strings.Repeat("[", 1<<20),
		"wikilinks":    strings.Repeat("[[", 1<<20),
		"open links":   strings.Repeat("[a](", 1<<18),
		"many lines":   strings.Repeat("- k:: [[A]] {x: 1}\n", 50000),
		"many tags":    strings.Repeat("#t", 1<<18) + strings.Repeat(" #u", 1<<18),
		"many fences":  strings.Repeat("```\n", 100000),
		"many ticks":   strings.Repeat("`a``b", 1<<18),
		"many headers": strings.Repeat("# h\n## i\n", 50000),
	}
}

func TestHugeInputParses(t *testing.T) {
	if testing.Short() {
		t.Skip("slow in -short")
	}
	for name, in := range hugeInputs() {
		t.Run(name, func(t *testing.T) {
			// parse checks every invariant of the result.
			parse(t, in)
		})
	}
}

func BenchmarkHugeInput(b *testing.B) {
	for name, in := range hugeInputs() {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				Parse(testPath, []byte(in), Options{})
			}
		})
	}
}

func TestDistinctTagsScale(t *testing.T) {
	var b strings.Builder
	for i := range 50000 {
		b.WriteString(" #t")
		b.WriteString(strings.Repeat("a", i%7+1))
		b.WriteString(string(rune('a' + i%26)))
		b.WriteString(strings.Repeat("b", i/26%50))
	}
	if p := parse(t, b.String()); len(p.Tags) == 0 {
		t.Error("no tags")
	}
}

func TestNestedYAMLMergesAreBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("---\na: &a {k0: 1, k1: 1, k2: 1, k3: 1, k4: 1, k5: 1, k6: 1, k7: 1, k8: 1, k9: 1}\n")
	prev := "a"
	for _, name := range []string{"b", "c", "d", "e", "f", "g", "h"} {
		b.WriteString(name + ": &" + name + " {<<: [")
		for k := range 10 {
			if k > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*" + prev)
		}
		b.WriteString("]}\n")
		prev = name
	}
	b.WriteString("---\nbody\n")
	p := parse(t, b.String())
	if len(p.Warnings) != 1 || p.Warnings[0].Kind != format.WarnYAMLAliasBomb {
		t.Errorf("warnings = %+v, want an alias bomb", p.Warnings)
	}
}
