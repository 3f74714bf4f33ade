package vaultgen

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"math"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// hashVault returns the sha256 of every file under dir by vault-relative
// path.
func hashVault(t testing.TB, dir string) map[string]string {
	t.Helper()
	sums := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		sum := sha256.Sum256(data)
		sums[filepath.ToSlash(rel)] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return sums
}

func generate(t testing.TB, cfg Config) (string, Stats) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "vault")
	st, err := Generate(dir, cfg)
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	return dir, st
}

func TestGenerateIsDeterministic(t *testing.T) {
	cfg := Config{Notes: 400, Seed: 42}
	dirA, stA := generate(t, cfg)
	// Another run on one CPU must write the same bytes: notes must not
	// depend on which worker wrote them or in which order.
	prev := runtime.GOMAXPROCS(1)
	dirB, stB := generate(t, cfg)
	runtime.GOMAXPROCS(prev)
	a, b := hashVault(t, dirA), hashVault(t, dirB)
	if len(a) != len(b) {
		t.Fatalf("runs wrote %d and %d files", len(a), len(b))
	}
	for p, sum := range a {
		if b[p] != sum {
			t.Fatalf("%s differs between two runs with the same Config", p)
		}
	}
	if stA != stB {
		t.Errorf("Stats differ between runs: %+v vs %+v", stA, stB)
	}
	dirC, _ := generate(t, Config{Notes: 400, Seed: 43})
	same := 0
	for p, sum := range hashVault(t, dirC) {
		if a[p] == sum {
			same++
		}
	}
	if same > 1 { // .obsidian/app.json is the same in every vault
		t.Errorf("%d files identical across different seeds", same)
	}
}

func TestGenerateRefusesNonEmptyDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "mine.md"), []byte("# mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Generate(dir, Config{Notes: 5}); !errors.Is(err, ErrNotEmpty) {
		t.Fatalf("Generate into a non-empty dir: err = %v, want ErrNotEmpty", err)
	}
	// An existing empty directory is fine.
	if _, err := Generate(t.TempDir(), Config{Notes: 5}); err != nil {
		t.Fatalf("Generate into an empty dir: %v", err)
	}
}

func TestConfigValidation(t *testing.T) {
	for _, cfg := range []Config{
		{},
		{Notes: -1},
		{Notes: 10, TypedEdgeShare: 1.5},
		{Notes: 10, Folders: -2},
	} {
		if _, err := Generate(filepath.Join(t.TempDir(), "v"), cfg); err == nil {
			t.Errorf("Generate(%+v) succeeded", cfg)
		}
	}
}

// TestStatsMatchTheBytes reads a generated vault back with a small
// independent scanner and checks every count in Stats, then checks that
// the vault has the shape Config asks for.
func TestStatsMatchTheBytes(t *testing.T) {
	cfg := Config{Notes: 2000, Seed: 7}
	dir, st := generate(t, cfg)
	got := scanVault(t, dir)

	if st.Notes != cfg.Notes || got.notes != cfg.Notes {
		t.Errorf("notes: Stats %d, on disk %d, want %d", st.Notes, got.notes, cfg.Notes)
	}
	for _, c := range []struct {
		name        string
		stats, disk int64
	}{
		{"bytes", st.Bytes, got.bytes},
		{"folders", int64(st.Folders), int64(got.folders)},
		{"links + typed edges", int64(st.Links + st.TypedEdges), int64(got.links)},
		{"embeds", int64(st.Embeds), int64(got.embeds)},
		{"unresolved", int64(st.Unresolved), int64(got.unresolved)},
		{"stubs", int64(st.Stubs), int64(got.stubs)},
		{"max backlinks", int64(st.MaxBacklinks), int64(got.maxBacklinks)},
	} {
		if c.stats != c.disk {
			t.Errorf("%s: Stats says %d, the files hold %d", c.name, c.stats, c.disk)
		}
	}

	all := float64(st.Links + st.TypedEdges)
	mean := float64(st.Bytes) / float64(st.Notes)
	for _, c := range []struct {
		name     string
		v        float64
		min, max float64
	}{
		{"folders", float64(st.Folders), 10, 50},
		{"mean note bytes", mean, 0.85 * DefaultMeanNoteBytes, 1.15 * DefaultMeanNoteBytes},
		{"largest note bytes", float64(got.maxSize), 15000, math.Inf(1)},
		{"links per KB", all * 1000 / float64(st.Bytes), 0.8 * DefaultLinksPerKB, 1.2 * DefaultLinksPerKB},
		{"typed edge share", float64(st.TypedEdges) / all, 0.17, 0.23},
		{"missing link share", float64(st.Unresolved) / all, 0.005, 0.02},
		{"frontmatter share", float64(got.frontmatter) / float64(st.Notes), 0.8, 0.9},
		// A Zipf law with exponent 1 over 2,000 notes gives the top note
		// about an eighth of all links.
		{"biggest hub share", float64(st.MaxBacklinks) / all, 0.08, 0.2},
	} {
		t.Logf("%s = %.3f", c.name, c.v)
		if c.v < c.min || c.v > c.max {
			t.Errorf("%s = %.3f, want between %.3f and %.3f", c.name, c.v, c.min, c.max)
		}
	}
	if st.Embeds == 0 || st.Stubs == 0 || got.codeLinks == 0 || got.signed == 0 || got.props == 0 || got.commaLists == 0 {
		t.Errorf("missing syntax: embeds %d, stubs %d, links in code %d, signed edges %d, edge props %d, comma lists %d",
			st.Embeds, st.Stubs, got.codeLinks, got.signed, got.props, got.commaLists)
	}
}

type scan struct {
	notes, folders, frontmatter                    int
	bytes                                          int64
	maxSize                                        int
	links, embeds, unresolved, stubs, maxBacklinks int
	codeLinks, signed, props, commaLists           int
}

var (
	scanWiki    = regexp.MustCompile(`(!?)\[\[([^\]]*)\]\]`)
	scanMD      = regexp.MustCompile(`\[[^\[\]]*\]\(([^)]*\.md)\)`)
	scanCode    = regexp.MustCompile("`[^`]*`")
	scanAliases = regexp.MustCompile(`(?m)^aliases: \[(.*)\]$`)
	scanSigned  = regexp.MustCompile(`(?m)^(- )?[+-][a-z_]+:: `)
	scanProps   = regexp.MustCompile(`(?m)::.*\]\] \{[a-z]+: [^}]+\}$`)
	scanComma   = regexp.MustCompile(`(?m)::.*\]\], \[\[`)
)

// scanVault counts links the simple way: every [[...]] and every
// [text](...md) outside fenced code and inline code, resolved by file
// name, path or alias, ignoring case.
func scanVault(t *testing.T, dir string) scan {
	t.Helper()
	var s scan
	files := map[string]string{} // vault path -> content
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if strings.HasPrefix(d.Name(), ".") && rel != "." {
			return filepath.SkipDir
		}
		if d.IsDir() {
			if rel != "." {
				s.folders++
			}
			return nil
		}
		data, err := os.ReadFile(p)
		files[rel] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{} // lower-cased link name -> vault path
	for p, data := range files {
		names[strings.ToLower(strings.TrimSuffix(p, ".md"))] = p
		names[strings.ToLower(strings.TrimSuffix(path.Base(p), ".md"))] = p
		if m := scanAliases.FindStringSubmatch(data); m != nil {
			for _, q := range strings.Split(m[1], ", ") {
				a, err := strconv.Unquote(q)
				if err != nil {
					t.Fatalf("%s: alias %s: %v", p, q, err)
				}
				names[strings.ToLower(a)] = p
			}
		}
	}
	backlinks := map[string]int{}
	stubs := map[string]bool{}
	for p, data := range files {
		s.notes++
		s.bytes += int64(len(data))
		s.maxSize = max(s.maxSize, len(data))
		if strings.HasPrefix(data, "---\n") {
			s.frontmatter++
		}
		s.signed += len(scanSigned.FindAllString(data, -1))
		s.props += len(scanProps.FindAllString(data, -1))
		s.commaLists += len(scanComma.FindAllString(data, -1))
		inFence := false
		for _, line := range strings.Split(data, "\n") {
			if strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~") {
				inFence = !inFence
				continue
			}
			if inFence {
				s.codeLinks += strings.Count(line, "[[")
				continue
			}
			line = scanCode.ReplaceAllStringFunc(line, func(code string) string {
				s.codeLinks += strings.Count(code, "[[")
				return ""
			})
			for _, m := range scanWiki.FindAllStringSubmatch(line, -1) {
				s.links++
				if m[1] == "!" {
					s.embeds++
				}
				name, _, _ := strings.Cut(m[2], "|")
				name, _, _ = strings.Cut(name, "#")
				if target, ok := names[strings.ToLower(name)]; ok {
					backlinks[target]++
				} else {
					s.unresolved++
					stubs[strings.ToLower(name)] = true
				}
			}
			for _, m := range scanMD.FindAllStringSubmatch(line, -1) {
				s.links++
				target, err := url.PathUnescape(m[1])
				if err != nil {
					t.Fatalf("%s: markdown link %q: %v", p, m[1], err)
				}
				if strings.HasPrefix(target, "/") {
					target = target[1:]
				} else {
					target = path.Join(path.Dir(p), target)
				}
				if _, ok := files[target]; ok {
					backlinks[target]++
				} else {
					s.unresolved++
					stubs[target] = true
				}
			}
		}
	}
	s.stubs = len(stubs)
	for _, n := range backlinks {
		s.maxBacklinks = max(s.maxBacklinks, n)
	}
	return s
}

// BenchmarkGenerate10k measures Generate at the size of a large personal
// vault. Each iteration writes about 30 MB.
func BenchmarkGenerate10k(b *testing.B) {
	root := b.TempDir()
	n := 0
	for b.Loop() {
		dir := filepath.Join(root, strconv.Itoa(n))
		n++
		st, err := Generate(dir, Config{Notes: 10000, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(st.Bytes)
		b.StopTimer()
		if err := os.RemoveAll(dir); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

// TestGeneratedBytesArePinned pins the exact output for one Config.
// Benchmarks compare runs across commits only if they index the same
// vault, so a change here must be deliberate: update the digest, and do
// not compare benchmark results from before and after the change.
func TestGeneratedBytesArePinned(t *testing.T) {
	const want = "e1e7570ac79d29e4fb9f0575a4559321bbbb4be9df153693e853663425f76dfe"
	dir, _ := generate(t, Config{Notes: 300, Seed: 2026})
	sums := hashVault(t, dir)
	paths := make([]string, 0, len(sums))
	for p := range sums {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	h := sha256.New()
	for _, p := range paths {
		h.Write([]byte(p + "\x00" + sums[p] + "\n"))
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		t.Errorf("vault digest = %s, want %s: the generator's output changed", got, want)
	}
}
