//go:build linux

package indexer

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/indexer/vaultgen"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
)

// trustAtOnce makes the stat cache trust files written just before a run
// (the racy margin exists for writes within one tick of the clock, which
// these tests do not make) for the test's duration.
func trustAtOnce(t *testing.T) {
	old := statRacyMargin
	statRacyMargin = 0
	t.Cleanup(func() { statRacyMargin = old })
}

func statStages() []Stage {
	return []Stage{&EmbedStage{Embedder: embed.NewBuiltin()}, BM25Stage{}}
}

func genVault(t *testing.T, notes int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "vault")
	if _, err := vaultgen.Generate(dir, vaultgen.Config{Notes: notes, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func appendTo(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	must(t, err)
	_, err = f.WriteString(text)
	must(t, errorsJoin(err, f.Close()))
}

func errorsJoin(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// sameFiles fails t unless the snapshots in dirs a and b hold the same
// bytes in every file but those named in except.
func sameFiles(t *testing.T, a, b string, except ...string) {
	t.Helper()
	ma, mb := openSnap(t, a).Manifest, openSnap(t, b).Manifest
	skip := map[string]bool{format.ManifestFile: true}
	for _, e := range except {
		skip[e] = true
	}
	for name, fa := range ma.Files {
		if skip[name] {
			continue
		}
		if fb, ok := mb.Files[name]; !ok || fb.SHA256 != fa.SHA256 {
			t.Errorf("%s differs between the run that used the stat cache and a first run", name)
		}
	}
	if len(ma.Files) != len(mb.Files) {
		t.Errorf("%d files against %d", len(ma.Files), len(mb.Files))
	}
}

func TestStatCacheLeavesUnchangedNotesUnread(t *testing.T) {
	trustAtOnce(t)
	vault := genVault(t, 1200)
	data := t.TempDir()
	stages := func(o *Options) { o.Stages = statStages() }
	first := run(t, vault, data, stages)
	if first.Unread != 0 {
		t.Fatalf("a first run left %d notes unread", first.Unread)
	}
	if _, err := os.Stat(filepath.Join(data, statCacheFile)); err != nil {
		t.Fatalf("no stat cache after a run: %v", err)
	}
	if again := run(t, vault, data, stages); !again.Unchanged || again.Unread != 1200 {
		t.Fatalf("unchanged vault: %+v, want unchanged with every note unread", again)
	}
	edited, err := vaultgen.Edit(vault, 7, 1)
	must(t, err)
	res := run(t, vault, data, stages)
	if res.Parsed != 1 || res.Unread == 0 || res.Unread >= 1199 {
		t.Fatalf("after editing %v: parsed %d, unread %d; want 1 parsed, and the notes of the other segments unread", edited, res.Parsed, res.Unread)
	}
	// What it published is what a first run of the edited vault publishes.
	fresh := run(t, vault, t.TempDir(), stages)
	assertSameTables(t, openSnap(t, res.Dir), openSnap(t, fresh.Dir))
	sameFiles(t, res.Dir, fresh.Dir, format.ChunkHNSWFile, format.EdgeHNSWFile)
	notes, err := openSnap(t, res.Dir).Notes()
	must(t, err)
	for _, n := range notes {
		if !n.Stub && n.Content == "" {
			t.Errorf("%s has no content in the snapshot", n.ID)
		}
	}
}

// changeKeepingSizeAndTime rewrites the note at path ("Fetches" becomes
// "Collects") with its size and modification time as they were, and
// returns the new content.
func changeKeepingSizeAndTime(t *testing.T, path string) []byte {
	t.Helper()
	fi, err := os.Stat(path)
	must(t, err)
	old, err := os.ReadFile(path)
	must(t, err)
	changed := bytes.Replace(old, []byte("Fetches"), []byte("Collects"), 1)[:len(old)]
	changed[len(changed)-1] = '\n'
	must(t, os.WriteFile(path, changed, 0o644))
	must(t, os.Chtimes(path, fi.ModTime(), fi.ModTime()))
	return changed
}

func TestStatCacheSeesAChangeThatKeepsSizeAndTime(t *testing.T) {
	trustAtOnce(t)
	vault := writeVault(t, smallVault)
	data := t.TempDir()
	run(t, vault, data)
	changed := changeKeepingSizeAndTime(t, filepath.Join(vault, "Projects", "Crawler.md"))
	res := run(t, vault, data)
	if res.Unchanged || res.Parsed != 1 {
		t.Fatalf("after a change that kept size and time: %+v, want Crawler parsed", res)
	}
	sum := sha256.Sum256(changed)
	if got := res.Manifest.Notes["Projects/Crawler.md"].SHA256; got != hex.EncodeToString(sum[:]) {
		t.Errorf("Crawler signed %s, want the changed content's", got)
	}
}

func TestStatCacheTrustsOnlyFilesOlderThanItsWalk(t *testing.T) {
	old := statRacyMargin
	statRacyMargin = time.Hour // every file here is younger than that
	t.Cleanup(func() { statRacyMargin = old })
	vault := writeVault(t, smallVault)
	data := t.TempDir()
	run(t, vault, data)
	appendTo(t, filepath.Join(vault, "Projects", "Crawler.md"), "More.\n")
	if res := run(t, vault, data); res.Unread != 0 || res.Parsed != 1 {
		t.Fatalf("files younger than the margin: %+v, want every note read and one parsed", res)
	}
}

func TestStatCacheOfAnotherSnapshotIsIgnored(t *testing.T) {
	trustAtOnce(t)
	vault := writeVault(t, smallVault)
	data := t.TempDir()
	run(t, vault, data)
	cache := filepath.Join(data, statCacheFile)
	first, err := os.ReadFile(cache)
	must(t, err)
	appendTo(t, filepath.Join(vault, "Projects", "Crawler.md"), "More.\n")
	run(t, vault, data)
	must(t, os.WriteFile(cache, first, 0o644)) // names the first snapshot, not the parent
	appendTo(t, filepath.Join(vault, "Projects", "Search.md"), "More.\n")
	if res := run(t, vault, data); res.Unread != 0 || res.Parsed != 1 {
		t.Fatalf("with a stat cache of an older snapshot: %+v, want every note read", res)
	}
	for _, damaged := range [][]byte{first[:len(first)/2], []byte("not a cache"), append(bytes.Clone(first), 7)} {
		must(t, os.WriteFile(cache, damaged, 0o644))
		appendTo(t, filepath.Join(vault, "Projects", "Search.md"), "More.\n")
		if res := run(t, vault, data); res.Unread != 0 || res.Parsed != 1 {
			t.Fatalf("with a damaged stat cache: %+v, want every note read", res)
		}
	}
}

// TestStatCacheMistakeStartsTheRunAgain: a note the cache vouches for
// that is not the one the parent signed (here forged: the cache is made to
// record the changed file) is found when its text is needed, and the run
// reads every note instead of publishing the parent's text.
func TestStatCacheMistakeStartsTheRunAgain(t *testing.T) {
	trustAtOnce(t)
	vault := writeVault(t, smallVault)
	data := t.TempDir()
	first := run(t, vault, data)
	path := filepath.Join(vault, "Projects", "Crawler.md")
	changed := changeKeepingSizeAndTime(t, path)
	// Forge the cache: it now records the changed file.
	c := readStatCache(data, openSnap(t, first.Dir))
	if c == nil {
		t.Fatal("no stat cache for the first snapshot")
	}
	fi, err := os.Stat(path)
	must(t, err)
	c.notes["Projects/Crawler.md"] = statOf(fi)
	var files []vaultFile
	for p, st := range c.notes {
		files = append(files, vaultFile{Path: p, stat: st})
	}
	must(t, writeStatCache(data, c.snapshot, time.Now(), time.Now(), files))
	// An edit of another note of the same (only) segment needs Crawler's text.
	appendTo(t, filepath.Join(vault, "Projects", "Search.md"), "More.\n")
	var log bytes.Buffer
	res := run(t, vault, data, func(o *Options) { o.Log = slog.New(slog.NewTextHandler(&log, nil)) })
	if !strings.Contains(log.String(), "reading every note") || !strings.Contains(log.String(), "Projects/Crawler.md is not the note the parent snapshot signed") {
		t.Errorf("the run did not start again reading every note; its log:\n%s", log.String())
	}
	sum := sha256.Sum256(changed)
	if res.Unread != 0 || res.Manifest.Notes["Projects/Crawler.md"].SHA256 != hex.EncodeToString(sum[:]) {
		t.Fatalf("after a stat cache mistake: unread %d, Crawler signed %s; want every note read and the changed content signed",
			res.Unread, res.Manifest.Notes["Projects/Crawler.md"].SHA256)
	}
	fresh := run(t, vault, t.TempDir())
	assertSameTables(t, openSnap(t, res.Dir), openSnap(t, fresh.Dir))
}

func TestStatCacheRoundTrip(t *testing.T) {
	files := []vaultFile{
		{Path: "a.md", stat: fileStat{dev: 1, ino: 2, size: 3, mtime: 4, ctime: 5, ok: true}},
		{Path: "b/ü.md", stat: fileStat{dev: 1 << 40, ino: 1 << 50, size: 1 << 30, mtime: time.Now().UnixNano(), ctime: 1, ok: true}},
		{Path: "no-stat.md"},
	}
	data := t.TempDir()
	walked, verified := time.Unix(0, 1234567890123), time.Unix(0, 1234567)
	must(t, writeStatCache(data, "01SNAPSHOT", walked, verified, files))
	b, err := os.ReadFile(filepath.Join(data, statCacheFile))
	must(t, err)
	c, err := decodeStatCache(b)
	must(t, err)
	if c.snapshot != "01SNAPSHOT" || !c.walked.Equal(walked) || !c.verified.Equal(verified) || len(c.notes) != 2 ||
		c.notes["a.md"] != files[0].stat || c.notes["b/ü.md"] != files[1].stat {
		t.Fatalf("decoded %+v", c)
	}
	if c.differs(files) {
		t.Error("differs from the files it was written from")
	}
	files[0].stat.ctime++
	if !c.differs(files) {
		t.Error("a changed ctime does not differ")
	}
	for i := range len(b) {
		if _, err := decodeStatCache(b[:i]); err == nil {
			t.Fatalf("a cache cut to %d of %d bytes decoded", i, len(b))
		}
	}
}

// TestStatCacheUnderAParentOfAnotherFormat: every segment is written anew
// under a format 6 parent, so every note the cache vouched for is read
// for its text, and the tables are a full build's.
func TestStatCacheUnderAParentOfAnotherFormat(t *testing.T) {
	trustAtOnce(t)
	vault := genVault(t, 800)
	data := t.TempDir()
	first := run(t, vault, data)
	asFormat6(t, first.Dir)
	_, err := vaultgen.Edit(vault, 7, 1)
	must(t, err)
	var log bytes.Buffer
	res := run(t, vault, data, func(o *Options) { o.Log = slog.New(slog.NewTextHandler(&log, nil)) })
	if res.Parent != first.ID || res.Parsed != 1 || res.Unread != 0 {
		t.Fatalf("run on a format 6 parent with a stat cache: %+v; want one parsed and none left unread", res)
	}
	if strings.Contains(log.String(), "reading every note") {
		t.Errorf("the run had to start again (the notes of every segment should have been read first):\n%s", log.String())
	}
	full := run(t, vault, t.TempDir(), func(o *Options) { o.Full = true })
	assertSameTables(t, openSnap(t, res.Dir), openSnap(t, full.Dir))
	notes, err := openSnap(t, res.Dir).Notes()
	must(t, err)
	for _, n := range notes {
		if !n.Stub && n.Content == "" {
			t.Errorf("%s has no content", n.ID)
		}
	}
}

// TestStatCacheReadsEveryNoteNowAndThen: a cache whose last full read is
// older than statCacheTrust is not used (a note written through a shared
// memory map may show no new time), and the run that reads every note
// starts the count again.
func TestStatCacheReadsEveryNoteNowAndThen(t *testing.T) {
	trustAtOnce(t)
	vault := genVault(t, 1200)
	data := t.TempDir()
	first := run(t, vault, data)
	// Age the cache's last full read.
	c := readStatCache(data, openSnap(t, first.Dir))
	if c == nil || c.verified.IsZero() {
		t.Fatalf("no stat cache, or no full read recorded: %+v", c)
	}
	var files []vaultFile
	for p, st := range c.notes {
		files = append(files, vaultFile{Path: p, stat: st})
	}
	must(t, writeStatCache(data, c.snapshot, c.walked, c.walked.Add(-statCacheTrust-time.Minute), files))
	_, err := vaultgen.Edit(vault, 11, 1)
	must(t, err)
	res := run(t, vault, data)
	if res.Unread != 0 || res.Parsed != 1 {
		t.Fatalf("with the last full read older than the trust: %+v, want every note read", res)
	}
	full := readStatCache(data, openSnap(t, res.Dir))
	if full == nil || time.Since(full.verified) > time.Minute {
		t.Fatalf("the full read did not start the count again: %+v", full)
	}
	_, err = vaultgen.Edit(vault, 12, 1)
	must(t, err)
	res = run(t, vault, data)
	if res.Unread == 0 {
		t.Fatalf("after a full read the cache is trusted again: %+v, want notes left unread", res)
	}
	if c := readStatCache(data, openSnap(t, res.Dir)); c == nil || !c.verified.Equal(full.verified) {
		t.Fatalf("a run that left notes unread did not keep the last full read's time %v: %+v", full.verified, c)
	}
}
