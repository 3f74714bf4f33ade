package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// hostileVault is one vault made to hurt the indexer, and a query whose
// answer shows the vault was indexed (want is the first row, printed
// with %v).
type hostileVault struct {
	name  string
	make  func(dir string) error
	query string
	want  string
}

func writeNote(dir, name, text string) error {
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(text), 0o644)
}

// repeat builds a note of n lines made by line(i).
func repeat(n int, line func(i int) string) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(line(i))
		b.WriteByte('\n')
	}
	return b.String()
}

var hostileVaults = []hostileVault{
	{"one note with 20,000 inline-field keys", func(dir string) error {
		for i := range 100 {
			if err := writeNote(dir, fmt.Sprintf("T%d.md", i), "target\n"); err != nil {
				return err
			}
		}
		return writeNote(dir, "Hub.md", repeat(20000, func(i int) string { return fmt.Sprintf("key%05d:: [[T%d]]", i, i%100) }))
	}, "MATCH (h)-[r:key19999]->(t) RETURN h.title, t.title", "[Hub T99]"},
	{"one note with 20,000 frontmatter keys", func(dir string) error {
		return writeNote(dir, "Wide.md", "---\n"+repeat(20000, func(i int) string { return fmt.Sprintf("field%05d: %d", i, i) })+"---\nbody\n")
	}, "MATCH (n) WHERE n.field19999 = 19999 RETURN n.title", "[Wide]"},
	{"one note with 20,000 inline-field properties", func(dir string) error {
		return writeNote(dir, "Props.md", repeat(20000, func(i int) string { return fmt.Sprintf("prop%05d:: value %d", i, i) }))
	}, "MATCH (n) WHERE n.prop00007 IS NOT NULL RETURN n.title", "[Props]"},
	{"a 6 MB note (under the size limit)", func(dir string) error {
		return writeNote(dir, "Huge.md", "# Huge\n"+repeat(70000, func(i int) string {
			return fmt.Sprintf("Paragraph %d links to [[Other %d]] and #tag%d with some words to fill the line out.", i, i%500, i%50)
		}))
	}, "MATCH (n {title: 'Huge'})-[:links_to]->(m) RETURN count(DISTINCT m)", "[500]"},
	{"a 9 MB note (over the size limit) beside a small one", func(dir string) error {
		if err := writeNote(dir, "Small.md", "small\n"); err != nil {
			return err
		}
		return writeNote(dir, "TooBig.md", strings.Repeat("x", 9<<20))
	}, "MATCH (n) WHERE NOT n.stub RETURN collect(n.title)", "[[Small]]"},
	{"a 5 MB note on one line", func(dir string) error {
		return writeNote(dir, "Line.md", strings.Repeat("word [[Line]] ", 5<<20/14))
	}, "MATCH (n {title: 'Line'}) RETURN n.title", "[Line]"},
	{"a note linking to itself 100,000 times", func(dir string) error {
		return writeNote(dir, "Self.md", repeat(1000, func(int) string { return strings.Repeat("[[Self]] ", 100) }))
	}, "MATCH (n {title: 'Self'})-[r:links_to]->(n) RETURN sum(r.count)", "[100000]"},
	{"a note linking to 50,000 missing notes", func(dir string) error {
		return writeNote(dir, "Wishes.md", repeat(50000, func(i int) string { return fmt.Sprintf("[[Missing %d]]", i) }))
	}, "MATCH (n) WHERE n.stub RETURN count(n)", "[50000]"},
	{"frontmatter nested 10,000 deep (flow lists)", func(dir string) error {
		return writeNote(dir, "Deep.md", "---\ndeep: "+strings.Repeat("[", 10000)+strings.Repeat("]", 10000)+"\nok: 1\n---\nbody\n")
	}, "MATCH (n {title: 'Deep'}) RETURN n.title", "[Deep]"},
	{"frontmatter nested 1,000 deep (block maps)", func(dir string) error {
		var b strings.Builder
		b.WriteString("---\n")
		for i := range 1000 {
			b.WriteString(strings.Repeat(" ", i) + "k:\n")
		}
		b.WriteString("---\nbody\n")
		return writeNote(dir, "DeepMap.md", b.String())
	}, "MATCH (n {title: 'DeepMap'}) RETURN n.title", "[DeepMap]"},
	{"a YAML alias bomb in frontmatter", func(dir string) error {
		y := "---\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
		prev := "a"
		for _, c := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
			y += fmt.Sprintf("%s: &%s [*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s]\n", c, c, prev, prev, prev, prev, prev, prev, prev, prev, prev)
			prev = c
		}
		return writeNote(dir, "Bomb.md", y+"---\nbody\n")
	}, "MATCH (n {title: 'Bomb'}) RETURN n.title", "[Bomb]"},
	{"binary garbage named .md", func(dir string) error {
		r := rand.New(rand.NewPCG(1, 2))
		b := make([]byte, 2<<20)
		for i := range b {
			b[i] = byte(r.UintN(256))
		}
		if err := os.WriteFile(filepath.Join(dir, "Garbage.md"), b, 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "Nul.md"), []byte("---\ntitle: \x00\x00\n---\n\x00[[Garbage]]\x00"), 0o644); err != nil {
			return err
		}
		return writeNote(dir, "Fine.md", "[[Garbage]] [[Nul]]\n")
	}, "MATCH (n {title: 'Fine'})-[:links_to]->(m) RETURN count(m)", "[2]"},
	{"symlink loops and links out of the vault", func(dir string) error {
		if err := writeNote(dir, "A/Note.md", "[[B]]\n"); err != nil {
			return err
		}
		for link, target := range map[string]string{
			"A/loop": "..", "A/self": "self", "B.md": "A/Note.md", "outside": "/etc", "passwd.md": "/etc/passwd", "dangling.md": "nowhere.md",
		} {
			if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
				return err
			}
		}
		return nil
	}, "MATCH (n {title: 'Note'}) RETURN n.path", "[A/Note.md]"},
	{"control characters and invalid UTF-8 in names", func(dir string) error {
		for _, name := range []string{"\x1b[31mRed\x07.md", "new\nline.md", "tab\there.md", "carriage\rreturn.md", "bad\xff\xfeutf8.md", "del\x7f.md"} {
			if err := writeNote(dir, name, "[[Index]]\n"); err != nil {
				return err
			}
		}
		return writeNote(dir, "Index.md", "index\n")
	}, "MATCH (n {title: 'Index'})<-[:links_to]-(m) RETURN count(m)", "[5]"},
	{"a folder nested 100 deep and a 250-byte name", func(dir string) error {
		deep := strings.Repeat("d/", 100)
		if err := writeNote(dir, deep+"Bottom.md", "[["+strings.Repeat("n", 247)+"]]\n"); err != nil {
			return err
		}
		return writeNote(dir, strings.Repeat("n", 247)+".md", "long\n")
	}, "MATCH (a {title: 'Bottom'})-[:links_to]->(b) RETURN size(b.title)", "[247]"},
	{"100,000 headings and 100,000 tags in one note", func(dir string) error {
		return writeNote(dir, "Many.md", repeat(100000, func(i int) string { return fmt.Sprintf("%s H%d #t%d", strings.Repeat("#", 1+i%6), i, i) }))
	}, "MATCH (n {title: 'Many'}) RETURN size(n.tags)", "[100000]"},
	{"an unclosed frontmatter and an unclosed code fence", func(dir string) error {
		if err := writeNote(dir, "Open.md", "---\ntitle: never closed\n"+repeat(10000, func(i int) string { return fmt.Sprintf("k%d: [[X%d]]", i, i) })); err != nil {
			return err
		}
		return writeNote(dir, "Fence.md", "```\n"+repeat(100000, func(i int) string { return fmt.Sprintf("[[Hidden %d]]", i) }))
	}, "MATCH (n) WHERE n.title STARTS WITH 'Hidden' RETURN count(n)", "[0]"},
}

// hostileGroup indexes each hostile vault: the run must finish and exit
// 0, the snapshot verify, the query answer, and the vault come out
// unchanged.
func hostileGroup(s *suite) {
	for i, hv := range hostileVaults {
		s.run(hv.name, 15*time.Minute, func(ctx context.Context) error {
			vault := filepath.Join(s.tmp, fmt.Sprintf("hostile-%02d", i))
			data := filepath.Join(s.tmp, fmt.Sprintf("hostile-%02d-data", i))
			defer os.RemoveAll(data)
			defer os.RemoveAll(vault)
			if err := os.MkdirAll(vault, 0o755); err != nil {
				return err
			}
			if err := hv.make(vault); err != nil {
				return fmt.Errorf("make the vault: %w", err)
			}
			before, err := treeSum(vault)
			if err != nil {
				return err
			}
			r, err := s.vg(ctx, "index", "--vault", vault, "--data", data, "--quiet")
			if err != nil {
				return err
			}
			if r.code != 0 || crashed(r.stderr) {
				return fmt.Errorf("index: %s", r)
			}
			after, err := treeSum(vault)
			if err != nil {
				return err
			}
			if err := sameTree(before, after); err != nil {
				return err
			}
			if _, err := s.vgOK(ctx, "snapshot", "verify", "--data", data); err != nil {
				return err
			}
			q, err := s.vgOK(ctx, "query", "--data", data, "--format", "json", hv.query)
			if err != nil {
				return err
			}
			var res struct {
				Rows [][]any `json:"rows"`
			}
			if err := json.Unmarshal([]byte(q.stdout), &res); err != nil {
				return fmt.Errorf("query output: %w: %s", err, tail(q.stdout, 300))
			}
			if len(res.Rows) == 0 || fmt.Sprint(res.Rows[0]) != hv.want {
				return fmt.Errorf("%s: rows %v, want first row %s", hv.query, res.Rows, hv.want)
			}
			return nil
		})
	}
}
