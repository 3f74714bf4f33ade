package cypher

import (
	"testing"
)

func addSeeds(f *testing.F) {
	for _, q := range validQueries {
		f.Add(q)
	}
	for _, q := range []string{
		"MATCH (n RETURN n", "RETURN [1, 2", "RETURN 'x", "MATCH (a)-[*3..1]->(b) RETURN a",
		"CREATE (n)", "MATCH (n) RETURN [(n)-->(m) | m]", "RETURN ((((1))))", "RETURN {a: {b: [1, {c: 2}]}}",
		"MATCH (a)<-->(b) RETURN a", "RETURN x -> x", "RETURN f(x -> x, (a, b) -> a)",
	} {
		f.Add(q)
	}
}

// FuzzParse checks that the parser never panics and that whatever it
// accepts prints to text it accepts again, printing the same.
func FuzzParse(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, src string) {
		q, err := Parse(src)
		if err != nil {
			if KindOf(err) == "" {
				t.Fatalf("error is not an *Error: %v", err)
			}
			return
		}
		printed := Print(q)
		q2, err := Parse(printed)
		if err != nil {
			t.Fatalf("printed query does not parse: %v\n input: %q\n printed: %q", err, src, printed)
		}
		if again := Print(q2); again != printed {
			t.Fatalf("printing is not stable\n input: %q\n first:  %q\n second: %q", src, printed, again)
		}
	})
}

// FuzzTranslate checks that translation never panics and that every
// translation parses.
func FuzzTranslate(f *testing.F) {
	addSeeds(f)
	g := fixtureGraph()
	params := map[string]any{"hits": []any{"a", "b"}, "t": "x", "min": 1.5, "k": 3.0, "x": nil}
	f.Fuzz(func(t *testing.T, src string) {
		tr, err := Compile(src, g, params, Options{MaxRows: 10})
		if err != nil {
			if KindOf(err) == "" {
				t.Fatalf("error is not an *Error: %v", err)
			}
			return
		}
		if _, err := Parse(tr.Query); err != nil {
			t.Fatalf("translation does not parse: %v\n input: %q\n translation: %q", err, src, tr.Query)
		}
	})
}
