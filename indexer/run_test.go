package indexer

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/format/glob"
	"github.com/vaultgraph/vaultgraph/indexer/note"
	"github.com/vaultgraph/vaultgraph/snapshot"
)

var smallVault = map[string]string{
	"People/Alice.md": "---\ntype: Person\naliases: [Al]\n---\n# Alice\nAlice leads [[Search]] and knows [[Bob]].\n\nleads:: [[Search]]\n",
	"People/Bob.md":   "---\ntype: [Person, Engineer]\nrole: engineer\n---\nBob works with [[Al]].\n\ncontributes:: [[Search]] {hours: 120}\n",
	"Projects/Search.md": "---\ntype: Project\n---\n# Search\nThe search project. See [[Crawler]] and [[Nowhere]].\n\n" +
		"depends_on:: [[Crawler]] {critical: true}\n",
	"Projects/Crawler.md": "---\ntype: Project\n---\nFetches pages.\n",
	"Companies/Acme.md":   "---\ntype: Company\n---\nfunds:: [[Search]] {amount: 250000, currency: EUR}\n",
	"Broken.md":           "---\ntitle: [unclosed\n---\nStill indexed, links to [[Alice]].\n",
}

func run(t *testing.T, vault, data string, mutate ...func(*Options)) *Result {
	t.Helper()
	opts := Options{Vault: vault, Data: data}
	for _, m := range mutate {
		m(&opts)
	}
	res, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

func TestRunPublishesAndReusesUnchangedNotes(t *testing.T) {
	vault := writeVault(t, smallVault)
	data := t.TempDir()

	first := run(t, vault, data)
	if first.Unchanged || first.Parsed != len(smallVault) || first.Reused != 0 {
		t.Fatalf("first run: %+v", first)
	}
	s := openSnap(t, first.Dir)
	k := s.Manifest.Counts
	if k.Notes != 6 || k.Stubs != 1 || k.Unresolved != 1 || k.Warnings == 0 {
		t.Errorf("counts = %+v", k)
	}
	if !hasWarning(s.Manifest, "Broken.md", format.WarnInvalidYAML) {
		t.Errorf("no invalid-yaml warning for Broken.md: %+v", s.Manifest.Warnings)
	}
	edges, err := s.Edges()
	must(t, err)
	assertEdge(t, edges, "Companies/Acme.md", "funds", "Projects/Search.md", "Acme (Company) funds Search (Project) - amount 250000, currency EUR")
	assertEdge(t, edges, "People/Bob.md", "links_to", "People/Alice.md", "Bob (Person, Engineer) links to Alice (Person)")
	assertEdge(t, edges, "Broken.md", "links_to", "People/Alice.md", "")

	second := run(t, vault, data)
	if !second.Unchanged || second.ID != first.ID {
		t.Fatalf("second run on an unchanged vault: %+v", second)
	}
	// A touch changes the modification time, not the content.
	future := time.Now().Add(time.Hour)
	must(t, os.Chtimes(filepath.Join(vault, "People/Bob.md"), future, future))
	if r := run(t, vault, data); !r.Unchanged {
		t.Errorf("touching a note published a snapshot: %+v", r)
	}

	must(t, os.WriteFile(filepath.Join(vault, "Projects/Crawler.md"), []byte("---\ntype: Project\n---\nFetches pages politely.\n"), 0o644))
	third := run(t, vault, data)
	if third.Unchanged || third.Parsed != 1 || third.Reused != len(smallVault)-1 || third.Parent != first.ID {
		t.Fatalf("after editing one note: %+v", third)
	}
	if third.ID <= first.ID {
		t.Errorf("new id %s does not sort after %s", third.ID, first.ID)
	}
	s3 := openSnap(t, third.Dir)
	if !hasWarning(s3.Manifest, "Broken.md", format.WarnInvalidYAML) {
		t.Errorf("the reused broken note lost its warning: %+v", s3.Manifest.Warnings)
	}
	// Reused rows must equal what a full parse produces.
	full := run(t, vault, t.TempDir(), func(o *Options) { o.Full = true })
	assertSameTables(t, s3, openSnap(t, full.Dir))
}

func TestRunResolvesAgainstTheWholeVaultAfterDeletes(t *testing.T) {
	vault := writeVault(t, smallVault)
	data := t.TempDir()
	run(t, vault, data)
	must(t, os.Remove(filepath.Join(vault, "Projects/Crawler.md")))
	res := run(t, vault, data)
	if res.Parsed != 0 || res.Reused != len(smallVault)-1 {
		t.Errorf("deleting a note re-parsed others: %+v", res)
	}
	edges, err := openSnap(t, res.Dir).Edges()
	must(t, err)
	for _, e := range edges {
		if e.Source == "Projects/Search.md" && e.Type == "depends_on" {
			if !e.Unresolved || e.Target != "Crawler" {
				t.Errorf("edge to the deleted note = %+v, want a stub target", e)
			}
			return
		}
	}
	t.Error("depends_on edge missing")
}

func TestRunNeverWritesToTheVault(t *testing.T) {
	vault := writeVault(t, smallVault)
	before := treeSignature(t, vault)
	data := t.TempDir()
	run(t, vault, data)
	run(t, vault, data, func(o *Options) { o.Full = true })
	if after := treeSignature(t, vault); after != before {
		t.Errorf("vault changed:\nbefore %s\nafter  %s", before, after)
	}
}

func TestRunRefusesDataInsideVault(t *testing.T) {
	vault := writeVault(t, smallVault)
	_, err := Run(context.Background(), Options{Vault: vault, Data: filepath.Join(vault, ".vaultgraph")})
	if err == nil || !strings.Contains(err.Error(), "inside the vault") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(vault, ".vaultgraph")); !errors.Is(err, fs.ErrNotExist) {
		t.Error("created the data directory inside the vault")
	}
}

func TestRunOptionChangeReparses(t *testing.T) {
	vault := writeVault(t, smallVault)
	data := t.TempDir()
	run(t, vault, data)
	res := run(t, vault, data, func(o *Options) { o.ChunkChars = 300 })
	if res.Unchanged || res.Parsed != len(smallVault) {
		t.Errorf("changing chunk size: %+v", res)
	}
	if r := run(t, vault, data, func(o *Options) { o.Ignore = []string{"Companies/"} }); r.Unchanged || r.Manifest.Counts.Notes != len(smallVault)-1 {
		t.Errorf("adding an ignore pattern: %+v", r)
	}
}

// TestRunParserRevisionReparses: a snapshot read by another revision of
// the note parser (here one written before revisions were recorded) has
// every note parsed again, even though no note changed.
func TestRunParserRevisionReparses(t *testing.T) {
	vault := writeVault(t, smallVault)
	data := t.TempDir()
	first := run(t, vault, data)
	if first.Manifest.Options.Parser != note.Revision {
		t.Fatalf("manifest options %+v, want parser %d", first.Manifest.Options, note.Revision)
	}
	// Rewrite the manifest as an older vaultgraph wrote it: no parser
	// revision. The manifest lists the other files' checksums, not its own.
	path := filepath.Join(first.Dir, format.ManifestFile)
	b, err := os.ReadFile(path)
	must(t, err)
	old := strings.Replace(string(b), fmt.Sprintf(`"parser":%d`, note.Revision), `"parser":0`, 1)
	if old == string(b) {
		t.Fatalf("no parser revision in the manifest:\n%s", b)
	}
	must(t, os.WriteFile(path, []byte(old), 0o644))
	res := run(t, vault, data)
	if res.Unchanged || res.Parsed != len(smallVault) || res.Reused != 0 {
		t.Errorf("after a parser revision change: %+v, want every note parsed again", res)
	}
	if again := run(t, vault, data); !again.Unchanged {
		t.Errorf("second run with the same revision: %+v, want unchanged", again)
	}
}

func TestRunWaitsForTheLock(t *testing.T) {
	vault := writeVault(t, smallVault)
	data := t.TempDir()
	release, err := snapshot.Lock(context.Background(), data, 0)
	must(t, err)
	_, err = Run(context.Background(), Options{Vault: vault, Data: data})
	if !errors.Is(err, snapshot.ErrLocked) {
		t.Fatalf("err = %v, want ErrLocked", err)
	}
	release()
	if r := run(t, vault, data); r.Unchanged {
		t.Fatal("no snapshot after the lock was released")
	}
}

func TestRunRecordsNewWalkProblems(t *testing.T) {
	vault := writeVault(t, smallVault)
	data := t.TempDir()
	run(t, vault, data)
	// A file that cannot be indexed changes no note, but the problem must
	// still reach a snapshot, once.
	must(t, os.WriteFile(filepath.Join(vault, "Bin.md"), []byte("PK\x00\x03"), 0o644))
	res := run(t, vault, data)
	if res.Unchanged || !hasWarning(res.Manifest, "Bin.md", format.WarnBinary) || res.Manifest.Counts.Notes != len(smallVault) {
		t.Fatalf("binary file not reported: %+v", res.Manifest.Warnings)
	}
	if again := run(t, vault, data); !again.Unchanged {
		t.Errorf("the same problem published another snapshot")
	}
}

func assertEdge(t *testing.T, edges []format.Edge, source, typ, target, sentence string) {
	t.Helper()
	for _, e := range edges {
		if e.Source == source && e.Type == typ && e.Target == target {
			if sentence != "" && e.Sentence != sentence {
				t.Errorf("edge %s sentence = %q, want %q", e.ID, e.Sentence, sentence)
			}
			return
		}
	}
	t.Errorf("no edge %s -%s-> %s", source, typ, target)
}

func hasWarning(m *format.Manifest, file, kind string) bool {
	for _, w := range m.Warnings {
		if w.File == file && w.Kind == kind {
			return true
		}
	}
	return false
}

func openSnap(t *testing.T, dir string) *snapshot.Snapshot {
	t.Helper()
	s, err := snapshot.Open(dir, snapshot.OpenOptions{VerifyChecksums: true})
	must(t, err)
	return s
}

// assertSameTables compares the rows of two snapshots of one vault, ignoring
// modification times.
func assertSameTables(t *testing.T, a, b *snapshot.Snapshot) {
	t.Helper()
	na, err := a.Notes()
	must(t, err)
	nb, err := b.Notes()
	must(t, err)
	for i := range na {
		na[i].Modified = time.Time{}
	}
	for i := range nb {
		nb[i].Modified = time.Time{}
	}
	if fmt.Sprint(na) != fmt.Sprint(nb) {
		t.Errorf("notes differ between incremental and full build")
	}
	ea, _ := a.Edges()
	eb, _ := b.Edges()
	if fmt.Sprint(ea) != fmt.Sprint(eb) {
		t.Errorf("edges differ between incremental and full build")
	}
	ca, _ := a.Chunks()
	cb, _ := b.Chunks()
	if fmt.Sprint(ca) != fmt.Sprint(cb) {
		t.Errorf("chunks differ between incremental and full build")
	}
}

// treeSignature hashes every path, mode, size, modification time and
// content under root.
func treeSignature(t *testing.T, root string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		line := fmt.Sprintf("%s %v %d %d", p, fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			line += fmt.Sprintf(" %x", sha256.Sum256(b))
		}
		lines = append(lines, line)
		return nil
	})
	must(t, err)
	sort.Strings(lines)
	return fmt.Sprintf("%x", sha256.Sum256([]byte(strings.Join(lines, "\n"))))
}

// TestRunOversizedNoteGrowing: a note that stays over the limit while it
// grows (a log) publishes nothing new and raises no new warning, and the
// poller agrees there is nothing to run for.
func TestRunOversizedNoteGrowing(t *testing.T) {
	vault := writeVault(t, map[string]string{"A.md": "# A\n", "Log.md": strings.Repeat("line\n", 40)})
	data := t.TempDir()
	limit := func(o *Options) { o.MaxNoteBytes = 100 }
	first := run(t, vault, data, limit)
	if !hasWarning(first.Manifest, "Log.md", format.WarnTooLarge) {
		t.Fatalf("no too-large warning: %+v", first.Manifest.Warnings)
	}
	sig, err := statSignature(vault, &glob.Set{}, 100)
	must(t, err)
	for i := range 2 {
		f, err := os.OpenFile(filepath.Join(vault, "Log.md"), os.O_APPEND|os.O_WRONLY, 0)
		must(t, err)
		_, err = f.WriteString(strings.Repeat("more\n", i+1))
		must(t, errors.Join(err, f.Close()))
		if r := run(t, vault, data, limit); !r.Unchanged {
			t.Errorf("append %d to a note over the limit published %s: warnings %+v", i+1, r.ID, r.Manifest.Warnings)
		}
		if now, err := statSignature(vault, &glob.Set{}, 100); err != nil || now != sig {
			t.Errorf("append %d: the poller sees a change (err %v)", i+1, err)
		}
	}
	// Under the limit again, it is indexed.
	must(t, os.WriteFile(filepath.Join(vault, "Log.md"), []byte("short\n"), 0o644))
	if r := run(t, vault, data, limit); r.Unchanged || hasWarning(r.Manifest, "Log.md", format.WarnTooLarge) {
		t.Errorf("a note back under the limit: %+v", r)
	}
}

// TestRunSymlinkToFolderKeepsNotesWhereTheyAre: a symlink added to a folder
// of the vault moves no note to the symlink's path, whatever sorts first.
func TestRunSymlinkToFolderKeepsNotesWhereTheyAre(t *testing.T) {
	vault := writeVault(t, map[string]string{"Cards/x.md": "# x\n", "Atlas/index.md": "[[x]]\n"})
	data := t.TempDir()
	run(t, vault, data)
	must(t, os.Symlink("../Cards", filepath.Join(vault, "Atlas", "cards")))
	res := run(t, vault, data)
	if _, ok := res.Manifest.Notes["Cards/x.md"]; !ok {
		t.Errorf("Cards/x.md left the snapshot: %v", res.Manifest.Notes)
	}
	if _, ok := res.Manifest.Notes["Atlas/cards/x.md"]; ok {
		t.Error("the note is indexed through the symlink too")
	}
	if !hasWarning(res.Manifest, "Atlas/cards", format.WarnSymlinkLoop) || hasWarning(res.Manifest, "Cards", format.WarnSymlinkLoop) {
		t.Errorf("warnings %+v, want one for the symlink Atlas/cards", res.Manifest.Warnings)
	}
	if again := run(t, vault, data); !again.Unchanged {
		t.Error("an unchanged vault with a symlink published a snapshot")
	}
}

// TestRunReplacesASnapshotOfAnOlderFormat: a snapshot written in an older
// format version is never read; the next run parses every note and
// publishes a snapshot of the current format, which is what the error that
// refuses the old one tells the user to do.
func TestRunReplacesASnapshotOfAnOlderFormat(t *testing.T) {
	vault := writeVault(t, smallVault)
	data := t.TempDir()
	first := run(t, vault, data)
	manifest := filepath.Join(first.Dir, format.ManifestFile)
	raw, err := os.ReadFile(manifest)
	must(t, err)
	old := strings.Replace(string(raw), fmt.Sprintf(`"format_version":%d`, format.Version), `"format_version": 1`, 1)
	if old == string(raw) {
		t.Fatal("manifest has no format_version to rewrite")
	}
	must(t, os.WriteFile(manifest, []byte(old), 0o644))
	_, err = snapshot.Open(first.Dir, snapshot.OpenOptions{})
	if !errors.Is(err, format.ErrUnknownVersion) || !strings.Contains(err.Error(), "vaultgraph index") {
		t.Fatalf("opening the old snapshot: %v, want a refusal naming the command", err)
	}

	second := run(t, vault, data)
	if second.Unchanged || second.Parent != "" || second.Parsed != len(smallVault) || second.ID <= first.ID {
		t.Fatalf("run after an old-format snapshot: %+v", second)
	}
	if s := openSnap(t, second.Dir); s.Manifest.FormatVersion != format.Version {
		t.Errorf("new snapshot has format %d", s.Manifest.FormatVersion)
	}
}

// TestRunDrawsProgressForEveryStage: with a progress writer (a terminal),
// parsing, the BM25 index and the graph build each draw their line.
func TestRunDrawsProgressForEveryStage(t *testing.T) {
	var progress strings.Builder
	run(t, writeVault(t, smallVault), t.TempDir(), func(o *Options) {
		o.Progress = &progress
		o.Stages = []Stage{BM25Stage{}, GraphStage{BufferPoolSize: 64 << 20}}
	})
	for _, want := range []string{"parsing 6/6 notes", "bm25 index", "/s, ETA ", "graph database "} {
		if !strings.Contains(progress.String(), want) {
			t.Errorf("progress lacks %q:\n%q", want, progress.String())
		}
	}
	// Without one, nothing is drawn (and nothing fails).
	run(t, writeVault(t, smallVault), t.TempDir(), func(o *Options) { o.Stages = []Stage{BM25Stage{}} })
}

// TestChunkTextIsStoredOnce: chunks.parquet has no text column; a chunk's
// text is its note's content between its byte offsets, which every reader
// cuts (snapshot.Chunks), and a range outside the content is refused as
// damage.
func TestChunkTextIsStoredOnce(t *testing.T) {
	res := run(t, writeVault(t, smallVault), t.TempDir())
	f, err := os.Open(filepath.Join(res.Dir, format.ChunksFile))
	must(t, err)
	defer f.Close()
	fi, err := f.Stat()
	must(t, err)
	pf, err := parquet.OpenFile(f, fi.Size())
	must(t, err)
	for _, c := range pf.Schema().Columns() {
		if col := strings.Join(c, "."); col == "text" || col == "context" {
			t.Fatalf("chunks.parquet has a %s column: %v", col, pf.Schema())
		}
	}
	s := openSnap(t, res.Dir)
	chunks, err := s.Chunks()
	must(t, err)
	notes, err := s.Notes()
	must(t, err)
	content := map[string]string{}
	byID := map[string]*format.Note{}
	for i, n := range notes {
		content[n.ID] = n.Content
		byID[n.ID] = &notes[i]
	}
	if len(chunks) == 0 {
		t.Fatal("no chunks")
	}
	for _, c := range chunks {
		if c.Text == "" || c.Text != content[c.Note][c.Start:c.End] {
			t.Fatalf("chunk %s: text %q is not its note's bytes %d..%d", c.ID, c.Text, c.Start, c.End)
		}
		// The context is the note's row and the heading put in words, as
		// the parser wrote it: the text key says so.
		ctx := note.ChunkContext(note.NoteContext(byID[c.Note]), c.Heading)
		if format.TextKey(format.EmbedText(ctx, c.Text)) != c.TextSHA256 {
			t.Fatalf("chunk %s: context %q from its note's row is not the one its text key was computed with", c.ID, ctx)
		}
	}
	if _, err := snapshot.ChunkText(content, chunks[0].Note, 0, int32(len(content[chunks[0].Note])+1)); err == nil ||
		!strings.Contains(err.Error(), chunks[0].Note) {
		t.Errorf("a range past the content: err = %v", err)
	}
	if _, err := snapshot.ChunkText(content, "Nowhere.md", 0, 0); err == nil {
		t.Error("a chunk of a note that is not a row was accepted")
	}
}
