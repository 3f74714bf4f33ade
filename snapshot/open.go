package snapshot

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"

	"github.com/cespare/xxhash/v2"

	"github.com/vaultgraph/vaultgraph/format"
)

var (
	// ErrNotFound is returned when no snapshot matches.
	ErrNotFound = errors.New("no snapshot found")
	// ErrInvalid is wrapped by every error about a snapshot that fails its
	// manifest's checks: missing manifest, missing, truncated or altered
	// files. Such a snapshot must not be served.
	ErrInvalid = errors.New("invalid snapshot")
)

// Snapshot is an opened, checked snapshot directory. It holds no open files:
// readers of its tables open them as needed.
type Snapshot struct {
	ID       string
	Dir      string
	Manifest *format.Manifest
}

// OpenOptions choose how thoroughly Open checks a snapshot.
type OpenOptions struct {
	// VerifyChecksums recomputes the sha256 of every file. Without it or
	// VerifyFast only presence and sizes are checked, which is cheap and
	// catches truncated copies.
	VerifyChecksums bool
	// VerifyFast recomputes the xxh64 of every file that has one in the
	// manifest (the sha256 of the others): it catches the same damage
	// (a flipped byte, a file rewritten in place) at a twentieth of the
	// cost, though not a file forged to match. VerifyChecksums wins when
	// both are set.
	VerifyFast bool
	// WithoutNoteSignatures leaves Manifest.Notes nil
	// (format.DecodeManifestWithoutNotes), for readers that serve a
	// snapshot rather than index after it.
	WithoutNoteSignatures bool
}

// verifyMode is how thoroughly check hashes files.
type verifyMode int

const (
	verifySizes verifyMode = iota
	verifyFast
	verifyFull
)

func (o OpenOptions) mode() verifyMode {
	switch {
	case o.VerifyChecksums:
		return verifyFull
	case o.VerifyFast:
		return verifyFast
	}
	return verifySizes
}

// Open reads and checks the snapshot in dir. Errors about the snapshot's
// content wrap ErrInvalid (and format.ErrUnknownVersion for a format this
// build cannot read).
func Open(dir string, opts OpenOptions) (*Snapshot, error) {
	m, err := readManifest(dir, opts.WithoutNoteSignatures)
	if err != nil {
		return nil, err
	}
	problems := check(dir, m, opts.mode(), false)
	if len(problems) > 0 {
		return nil, fmt.Errorf("%w: %s: %s", ErrInvalid, m.ID, problems[0])
	}
	return &Snapshot{ID: m.ID, Dir: dir, Manifest: m}, nil
}

// Recheck checks s's files against its manifest again as Open does with
// opts, without reading the manifest again: for a caller that opened s a
// moment ago and must not trust its files unchecked now (snapshot
// directories are never rewritten, but they can be damaged or removed).
// It fails as Open does.
func Recheck(s *Snapshot, opts OpenOptions) (*Snapshot, error) {
	if problems := check(s.Dir, s.Manifest, opts.mode(), false); len(problems) > 0 {
		return nil, fmt.Errorf("%w: %s: %s", ErrInvalid, s.ID, problems[0])
	}
	return &Snapshot{ID: s.ID, Dir: s.Dir, Manifest: s.Manifest}, nil
}

// CheckFiles checks the named files of s against its manifest as Open
// does with opts (sizes, xxh64 or sha256), several at once, and fails
// with an error wrapping ErrInvalid naming the first that differs. A name
// the manifest does not list is an error too. It lets a reader verify the
// files it reads first, then the others while it reads them.
func (s *Snapshot) CheckFiles(opts OpenOptions, names ...string) error {
	files := make(map[string]format.FileInfo, len(names))
	for _, n := range names {
		fi, ok := s.Manifest.Files[n]
		if !ok {
			return fmt.Errorf("%w: %s: %s: not in the manifest", ErrInvalid, s.ID, n)
		}
		files[n] = fi
	}
	if problems := checkFiles(s.Dir, files, opts.mode()); len(problems) > 0 {
		return fmt.Errorf("%w: %s: %s", ErrInvalid, s.ID, problems[0])
	}
	return nil
}

// ReadManifest reads and decodes dir's manifest and checks that it belongs
// to dir, without checking the files it lists (Open and Verify do). Errors
// about the manifest's content wrap ErrInvalid.
func ReadManifest(dir string) (*format.Manifest, error) { return readManifest(dir, false) }

// readManifest reads and decodes dir's manifest (without the per-note
// signatures if withoutNotes) and checks that it belongs to dir.
func readManifest(dir string, withoutNotes bool) (*format.Manifest, error) {
	data, err := os.ReadFile(filepath.Join(dir, format.ManifestFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s has no %s (an interrupted copy or build?)", ErrInvalid, dir, format.ManifestFile)
	}
	if err != nil {
		return nil, fmt.Errorf("open snapshot: %w", err)
	}
	decode := format.DecodeManifest
	if withoutNotes {
		decode = format.DecodeManifestWithoutNotes
	}
	m, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrInvalid, dir, err)
	}
	// After the version check, so that an old snapshot is reported as
	// old rather than as edited.
	if err := format.CheckManifestSum(data); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrInvalid, dir, err)
	}
	if m.ID != filepath.Base(dir) {
		return nil, fmt.Errorf("%w: %s holds the manifest of snapshot %s", ErrInvalid, dir, m.ID)
	}
	return m, nil
}

// Problem is one way a snapshot differs from its manifest.
type Problem struct {
	File   string
	Reason string
}

func (p Problem) String() string { return p.File + ": " + p.Reason }

// Verify recomputes every checksum of the snapshot in dir and lists every
// difference from its manifest, including files the manifest does not name.
// An empty list means the snapshot is intact. The error is non-nil only when
// the manifest itself cannot be read.
func Verify(dir string) (*format.Manifest, []Problem, error) {
	m, err := readManifest(dir, false)
	if err != nil {
		return nil, nil, err
	}
	return m, check(dir, m, verifyFull, true), nil
}

// check compares dir with m. With mode above verifySizes it hashes every
// file, several at once (a swap waits for the slowest); with extras it
// also reports files m does not name.
func check(dir string, m *format.Manifest, mode verifyMode, extras bool) []Problem {
	problems := checkFiles(dir, m.Files, mode)
	problems = append(problems, checkSegments(m)...)
	if extras {
		problems = append(problems, extraFiles(dir, m)...)
	}
	return problems
}

// checkFiles compares the files of dir with their entries in files, sorted
// by name.
func checkFiles(dir string, files map[string]format.FileInfo, mode verifyMode) []Problem {
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	// Largest first, so that the big files start hashing at once.
	sort.SliceStable(names, func(i, j int) bool { return files[names[i]].Size > files[names[j]].Size })
	found := make([]*Problem, len(names))
	var wg sync.WaitGroup
	work := make(chan int)
	for range min(runtime.GOMAXPROCS(0), len(names)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				found[i] = checkFile(dir, names[i], files[names[i]], mode)
			}
		}()
	}
	for i := range names {
		work <- i
	}
	close(work)
	wg.Wait()
	var problems []Problem
	for _, p := range found {
		if p != nil {
			problems = append(problems, *p)
		}
	}
	sort.SliceStable(problems, func(i, j int) bool { return problems[i].File < problems[j].File })
	return problems
}

// checkFile checks one file against want, nil when it matches.
func checkFile(dir, name string, want format.FileInfo, mode verifyMode) *Problem {
	p := filepath.Join(dir, filepath.FromSlash(name))
	fi, err := os.Stat(p)
	switch {
	case err != nil:
		return &Problem{name, "missing"}
	case fi.Size() != want.Size:
		return &Problem{name, fmt.Sprintf("size %d, manifest says %d", fi.Size(), want.Size)}
	case mode == verifySizes:
		return nil
	}
	if mode == verifyFast && want.XXH64 != "" {
		sum, err := fileXXH64(p)
		if err != nil {
			return &Problem{name, err.Error()}
		} else if sum != want.XXH64 {
			return &Problem{name, "xxh64 mismatch"}
		}
		return nil
	}
	sum, err := fileSHA256(p)
	if err != nil {
		return &Problem{name, err.Error()}
	} else if sum != want.SHA256 {
		return &Problem{name, "sha256 mismatch"}
	}
	return nil
}

func fileXXH64(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := xxhash.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func extraFiles(dir string, m *format.Manifest) []Problem {
	var problems []Problem
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if _, ok := m.Files[rel]; !ok && rel != format.ManifestFile {
			problems = append(problems, Problem{rel, "not in manifest"})
		}
		return nil
	})
	return problems
}

func fileSHA256(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Latest opens the newest snapshot of dataDir that passes Open's checks.
// Newer snapshots that fail are skipped and reported in skipped, so a bad
// snapshot never hides a good older one. It returns ErrNotFound when no
// snapshot opens.
func Latest(dataDir string, opts OpenOptions) (snap *Snapshot, skipped []error, err error) {
	entries, err := List(dataDir)
	if err != nil {
		return nil, nil, err
	}
	for i := len(entries) - 1; i >= 0; i-- {
		s, err := Open(entries[i].Dir, opts)
		if err != nil {
			skipped = append(skipped, err)
			continue
		}
		return s, skipped, nil
	}
	return nil, skipped, fmt.Errorf("%w in %s", ErrNotFound, SnapshotsDir(dataDir))
}

// checkSegments checks the manifest's Tables section against its files:
// each segment is named as format.SegmentFile numbers it and is one of the
// files. A manifest without the section (written by hand or by a test) is
// read as one file per table (Snapshot.Segments).
func checkSegments(m *format.Manifest) []Problem {
	if m.Tables == nil {
		return nil
	}
	var problems []Problem
	for _, table := range format.SegmentedTables {
		segs := m.Tables[table]
		if len(segs) == 0 {
			problems = append(problems, Problem{format.SegmentFile(table, 0), "the manifest's tables list no segment of " + table})
		}
		for i, seg := range segs {
			if want := format.SegmentFile(table, i); seg.File != want {
				problems = append(problems, Problem{seg.File, fmt.Sprintf("segment %d of %s, which should be named %s", i, table, want)})
			} else if _, ok := m.Files[seg.File]; !ok {
				problems = append(problems, Problem{seg.File, "a segment of " + table + " that the manifest's files do not list"})
			}
		}
	}
	return problems
}
