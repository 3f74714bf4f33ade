package indexer

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/format/glob"
	"github.com/vaultgraph/vaultgraph/snapshot"
)

// Result reports one indexing run.
type Result struct {
	// ID is the published snapshot, or the newest one when Unchanged.
	ID        string
	Dir       string
	Parent    string
	Unchanged bool
	// Parsed notes were read and parsed; Reused ones were taken from the
	// parent snapshot's tables because their content had not changed.
	Parsed, Reused int
	// Unread counts the reused notes the run did not even read: the stat
	// cache vouched for them (statcache.go).
	Unread int
	// CodeParsed and CodeReused count the repositories' files parsed and
	// reused by blob hash; HistoryRead the repositories whose history was
	// read again because HEAD moved.
	CodeParsed, CodeReused, HistoryRead int
	Manifest                            *format.Manifest
	Elapsed                             time.Duration
	// Stalled is set, with Unchanged, when the run existed only to retry
	// work the newest snapshot left pending and none of it got done (the
	// model server is still down): say what is still pending and why.
	Stalled []Stall
}

// Run indexes opts.Vault into a new snapshot in opts.Data. It returns with
// Unchanged set, publishing nothing, when the notes, the problems found
// walking the vault and the options are all as the newest snapshot recorded
// and either no stage has pending work, or the only pending work is a retry
// (PendingRetry) that made no progress: then Result.Stalled says what is
// still pending and why (also logged as a warning), and the next run
// retries it. A bad note never fails the run: it is recorded as a warning
// in the manifest. Run fails when the vault cannot be read at all, the lock
// cannot be taken, or a snapshot cannot be written; a failed or cancelled
// run publishes nothing.
func Run(ctx context.Context, opts Options) (*Result, error) {
	start := time.Now()
	opts = opts.withDefaults()
	vault, data, err := checkDirs(opts.Vault, opts.Data)
	if err != nil {
		return nil, err
	}
	// The repositories are checked before the lock, the first write: a
	// refused one leaves nothing behind, in the repository or beside it.
	if err := checkRepos(opts.Repos, data); err != nil {
		return nil, err
	}
	ignore, err := compileIgnore(opts.Ignore)
	if err != nil {
		return nil, err
	}
	release, err := snapshot.Lock(ctx, data, opts.LockWait)
	if err != nil {
		return nil, err
	}
	defer release()
	if removed, err := snapshot.RemoveLeftovers(data); err != nil {
		opts.Log.Warn("could not remove leftovers of an interrupted run", "err", err)
	} else if len(removed) > 0 {
		opts.Log.Info("removed leftovers of an interrupted run", "dirs", removed)
	}
	parent, newest, err := findParent(data, opts)
	if err != nil {
		return nil, err
	}
	if err := sameVault(parent, vault, opts); err != nil {
		return nil, err
	}
	// The first attempt trusts the stat cache; a note it vouched for that
	// turns out to be needed after all (or changed) sends the run back to
	// reading every note.
	for useStat := true; ; useStat = false {
		res, err := index(ctx, opts, start, vault, data, ignore, parent, newest, useStat)
		if useStat && errors.Is(err, errReadEveryNote) {
			opts.Log.Info("reading every note: the stat cache vouched for one that must be read", "reason", err)
			continue
		}
		return res, err
	}
}

// index is Run once the lock is held and the parent found: useStat lets
// it take the notes the stat cache vouches for as unchanged (statcache.go)
// without reading them. It returns an error wrapping errReadEveryNote when
// one of those turned out to be needed after all, before publishing
// anything.
func index(ctx context.Context, opts Options, start time.Time, vault, data string, ignore *glob.Set,
	parent *snapshot.Snapshot, newest string, useStat bool) (*Result, error) {
	walked := time.Now()
	files, walkWarnings, err := walkVault(vault, ignore, opts.MaxNoteBytes)
	if err != nil {
		return nil, err
	}
	// When the walk already sees a change, the parent's rows are read
	// while the vault is, on the other core. Otherwise the run is likely
	// to find nothing changed, and reads them only if it must.
	prev, stopReuse := lazyReusable(parent, opts)
	if statsChanged(parent, files) {
		prev, stopReuse = readReusable(ctx, parent, opts)
	}
	defer stopReuse()
	var stat *statCache
	if useStat && statCacheApplies(parent, opts) {
		stat = readStatCache(data, parent)
		if stat != nil && walked.Sub(stat.verified) > statCacheTrust {
			stat = nil // every note is read now and then (statCacheTrust)
		}
	}
	read, err := readAll(ctx, files, opts.Workers, opts.MaxNoteBytes, func(f vaultFile) (string, bool) {
		if !stat.unchanged(f, parent) {
			return "", false
		}
		return parent.Manifest.Notes[f.Path].SHA256, true
	})
	if err != nil {
		return nil, err
	}
	// The notes left unread keep the cache's last full read as theirs.
	verified := walked
	for _, r := range read {
		if r.Warning != nil {
			walkWarnings = append(walkWarnings, *r.Warning)
		}
		if r.unread {
			verified = stat.verified
		}
	}
	repos, err := readRepos(ctx, vault, opts.Repos, opts.MaxCodeBytes)
	if err != nil {
		return nil, err
	}
	var retry []string
	if parent != nil && !opts.Full && sameInputs(parent, read, walkWarnings, opts) && sameRepos(parent.Manifest.Repos, repos) &&
		(parent.Manifest.VaultRoot == "" || sameFolder(parent.Manifest.VaultRoot, vault)) && servable(parent, newest, opts.Log) {
		var rebuild bool
		if retry, rebuild = pendingWork(parent, opts.Stages); !rebuild && len(retry) == 0 {
			opts.Log.Debug("vault unchanged", "snapshot", parent.ID)
			if stat == nil || stat.differs(files) {
				keepStatCache(data, parent.ID, walked, verified, files, opts.Log)
			}
			res := unchangedResult(parent, start)
			for _, r := range read {
				if r.unread {
					res.Unread++
				}
			}
			return res, nil
		}
	}

	tables, err := assemble(ctx, read, prev(), opts)
	if err != nil {
		return nil, err
	}
	warnIfEmptied(parent, len(read), vault, opts)
	tables.warnings = append(tables.warnings, walkWarnings...)
	if err := tables.addCode(ctx, repos, parent, opts); err != nil {
		return nil, err
	}
	m := &format.Manifest{
		Created:     time.Now().UTC(),
		VaultRoot:   vault,
		ToolVersion: opts.ToolVersion,
		Options:     opts.manifestOptions(),
	}
	if parent != nil {
		m.Parent = parent.ID
	}
	id := format.NewSnapshotID(m.Created, newest)
	dir, err := publish(ctx, data, id, parent, tables, m, retry, opts)
	if void := (*errVoid)(nil); errors.As(err, &void) {
		return stalledResult(parent, start, tables, void, err, opts), nil
	}
	if err != nil {
		return nil, err
	}
	keepStatCache(data, id, walked, verified, files, opts.Log)
	res := &Result{ID: id, Dir: dir, Parent: m.Parent, Parsed: tables.parsed, Reused: tables.reused, Unread: tables.unreadCount(),
		Manifest: m, Elapsed: time.Since(start)}
	if tables.code != nil {
		res.CodeParsed, res.CodeReused, res.HistoryRead = tables.code.parsed, tables.code.reused, tables.code.historyRead
	}
	opts.Log.Info("published snapshot", "id", id, "notes", m.Counts.Notes, "edges", m.Counts.Edges,
		"chunks", m.Counts.Chunks, "warnings", m.Counts.Warnings, "parsed", res.Parsed, "reused", res.Reused, "unread", res.Unread,
		"elapsed", res.Elapsed.Round(time.Millisecond))
	return res, nil
}

// readReusable starts reading the parent's rows (reusable) on a goroutine
// of its own. prev waits for them; stop ends the reading and waits for the
// goroutine, so that nothing reads the parent once Run has returned.
func readReusable(ctx context.Context, parent *snapshot.Snapshot, opts Options) (prev func() *reuse, stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	var r *reuse
	go func() {
		defer close(done)
		r = reusable(ctx, parent, opts)
	}()
	prev = func() *reuse {
		<-done
		return r
	}
	stop = func() {
		cancel()
		<-done
	}
	return prev, stop
}

// lazyReusable is readReusable reading only when prev is called.
func lazyReusable(parent *snapshot.Snapshot, opts Options) (prev func() *reuse, stop func()) {
	var r *reuse
	var once sync.Once
	return func() *reuse {
		once.Do(func() { r = reusable(context.Background(), parent, opts) })
		return r
	}, func() {}
}

// statsChanged reports whether the walk found a note that the parent does
// not record with the same size and modification time, or not every note
// it records: a change that reading the notes will confirm.
func statsChanged(parent *snapshot.Snapshot, files []vaultFile) bool {
	if parent == nil {
		return false // nothing to reuse
	}
	if len(files) != len(parent.Manifest.Notes) {
		return true
	}
	for _, f := range files {
		sig, ok := parent.Manifest.Notes[f.Path]
		if !ok || sig.Size != f.Size || !sig.Modified.Equal(f.Modified) {
			return true
		}
	}
	return false
}

// manyNotes is the parent's note count above which a run that finds no
// note at all is warned about.
const manyNotes = 10

// warnIfEmptied warns when a run reads no note where the parent snapshot
// had many: a vault that is not mounted, or the wrong folder. The run
// still publishes (an emptied vault is a real state), and older snapshots
// keep the notes until gc removes them.
func warnIfEmptied(parent *snapshot.Snapshot, notes int, vault string, opts Options) {
	if notes > 0 || parent == nil || parent.Manifest.Counts.Notes < manyNotes {
		return
	}
	opts.Log.Warn("publishing a snapshot with 0 notes over one with many; is --vault the right folder (and mounted)?",
		"vault", vault, "parent", parent.ID, "parent_notes", parent.Manifest.Counts.Notes)
}

func unchangedResult(parent *snapshot.Snapshot, start time.Time) *Result {
	return &Result{ID: parent.ID, Dir: parent.Dir, Parent: parent.Manifest.Parent, Unchanged: true,
		Manifest: parent.Manifest, Elapsed: time.Since(start)}
}

// stalledResult reports a run that retried pending work without progress
// and published nothing. err is publish's error: void, joined with the
// failure to remove the temporary directory if there was one.
func stalledResult(parent *snapshot.Snapshot, start time.Time, t *tables, void *errVoid, err error, opts Options) *Result {
	if err != error(void) {
		opts.Log.Warn("could not remove the temporary directory of a snapshot not published; the next run removes it", "err", err)
	}
	for _, s := range void.stalls {
		opts.Log.Warn("nothing published: the vault is unchanged and work left pending by the newest snapshot is still pending; the next run retries it",
			"snapshot", parent.ID, "stage", s.Stage, "pending", s.Pending, "reason", s.Reason)
	}
	res := unchangedResult(parent, start)
	res.Parsed, res.Reused, res.Stalled = t.parsed, t.reused, void.stalls
	return res
}

// CheckDirs returns the error Run would return for these directories
// before writing anything: a missing vault, or one wrapping
// ErrMisplacedData. Watch retries failed runs, so a caller that starts a
// watch checks first.
func CheckDirs(vaultDir, dataDir string) error {
	_, _, err := checkDirs(vaultDir, dataDir)
	return err
}

// checkDirs resolves the vault and data directories and refuses a data
// directory inside the vault, or one that looks swapped with the vault:
// the indexer never writes to the vault.
func checkDirs(vaultDir, dataDir string) (vault, data string, err error) {
	if vaultDir == "" || dataDir == "" {
		return "", "", errors.New("both --vault and --data are required")
	}
	vault, err = filepath.Abs(vaultDir)
	if err != nil {
		return "", "", fmt.Errorf("vault path: %w", err)
	}
	fi, err := os.Stat(vault)
	if err != nil {
		return "", "", fmt.Errorf("open vault: %w", err)
	}
	if !fi.IsDir() {
		return "", "", fmt.Errorf("open vault: %s is not a folder", vault)
	}
	data, err = filepath.Abs(dataDir)
	if err != nil {
		return "", "", fmt.Errorf("data path: %w", err)
	}
	if err := DataOutsideVault(vault, data); err != nil {
		return "", "", err
	}
	if err := notSwapped(vault, data); err != nil {
		return "", "", err
	}
	return vault, data, nil
}

// ErrMisplacedData is returned (wrapped) by Run and DataOutsideVault when
// the data directory is inside the vault, or the two look swapped: a data
// directory that holds notes, or a vault that holds a data directory's
// snapshots or lock. Nothing has been written then; callers report it as a
// usage error.
var ErrMisplacedData = errors.New("vault and data directories misplaced")

// ErrOtherVault is returned (wrapped) by Run when the data directory's
// newest snapshot was built from another vault that still exists: two
// timers (or two laptops) sharing one --data would publish each vault in
// turn, every run a full re-index, and the servers would swap between
// them. Nothing has been written then; callers report it as a usage error.
var ErrOtherVault = errors.New("the data directory holds another vault's snapshots")

// sameVault refuses a run over a vault other than the one parent was built
// from, while that one still exists (a vault moved or renamed does not:
// its old path is gone, and the run warns). NewVault allows it.
func sameVault(parent *snapshot.Snapshot, vault string, opts Options) error {
	if parent == nil || parent.Manifest.VaultRoot == "" {
		return nil
	}
	was := parent.Manifest.VaultRoot
	if sameFolder(was, vault) {
		return nil
	}
	if fi, err := os.Stat(was); err != nil || !fi.IsDir() {
		opts.Log.Warn("the newest snapshot was built from a vault that is gone; taking this one as the vault moved", "was", was, "vault", vault)
		return nil
	}
	if opts.NewVault {
		opts.Log.Warn("replacing the vault this data directory holds", "was", was, "vault", vault)
		return nil
	}
	return fmt.Errorf("%w: %s holds snapshots of %s (the newest, %s), not of %s; index %s into another --data, or pass --new-vault to replace it",
		ErrOtherVault, opts.Data, was, parent.ID, vault, vault)
}

// sameFolder reports whether a and b name one folder (symlinks resolved).
func sameFolder(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// notSwapped refuses a vault that holds what a data directory holds
// (index.lock, or snapshots/ with a published snapshot in it) and a data
// directory that holds notes, before the lock (the first write) is taken:
// "index --vault DATA --data VAULT" would otherwise write into the vault.
func notSwapped(vault, data string) error {
	if _, err := os.Lstat(filepath.Join(vault, format.LockFile)); err == nil {
		return fmt.Errorf("%w: the vault %s holds %s, as a data directory does; are --vault and --data swapped?", ErrMisplacedData, vault, format.LockFile)
	}
	if entries, err := snapshot.List(vault); err == nil && len(entries) > 0 {
		return fmt.Errorf("%w: the vault %s holds snapshots/ with %d snapshots, as a data directory does; are --vault and --data swapped?", ErrMisplacedData, vault, len(entries))
	}
	if note := findNote(data); note != "" {
		return fmt.Errorf("%w: the data directory %s holds notes (%s); are --vault and --data swapped? (vaultgraph writes only snapshots there)", ErrMisplacedData, data, note)
	}
	return nil
}

// findNote returns the path of a Markdown file in dir, outside its
// snapshots, among the first few thousand entries, or "".
func findNote(dir string) string {
	found, seen := "", 0
	errStop := errors.New("stop")
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if seen++; seen > 5000 {
			return errStop
		}
		if d.IsDir() && p != dir && (d.Name() == format.SnapshotsDir || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(strings.ToLower(d.Name()), ".md") {
			found = p
			return errStop
		}
		return nil
	})
	return found
}

// DataOutsideVault refuses a data directory (which need not exist yet)
// that is the vault folder or inside it, symlinks resolved: the indexer
// never writes to the vault. Both paths must be absolute.
func DataOutsideVault(vault, data string) error {
	realVault, err := filepath.EvalSymlinks(vault)
	if err != nil {
		return fmt.Errorf("open vault: %w", err)
	}
	realData := data
	if r, err := filepath.EvalSymlinks(data); err == nil {
		realData = r
	}
	if realData == realVault || strings.HasPrefix(realData, realVault+string(filepath.Separator)) {
		return fmt.Errorf("%w: data directory %s is inside the vault %s; put it elsewhere (vaultgraph never writes to the vault)", ErrMisplacedData, data, vault)
	}
	return nil
}

// findParent opens the newest good snapshot, if any, and returns the newest
// snapshot id of any kind, which the new id must sort after.
func findParent(data string, opts Options) (*snapshot.Snapshot, string, error) {
	entries, err := snapshot.List(data)
	if err != nil {
		return nil, "", err
	}
	newest := ""
	if len(entries) > 0 {
		newest = entries[len(entries)-1].ID
	}
	parent, skipped, err := snapshot.Latest(data, snapshot.OpenOptions{})
	for _, s := range skipped {
		opts.Log.Warn("skipping a snapshot that does not open", "err", s)
	}
	if errors.Is(err, snapshot.ErrNotFound) {
		return nil, newest, nil
	}
	return parent, newest, err
}

// servable reports whether parent is the snapshot the servers serve: the
// newest one, every file hashing as its manifest records (the readers'
// VerifyFast). Only then may a run that finds the vault unchanged publish
// nothing. A damaged newest snapshot (a flipped byte keeps its size, so
// findParent's size check opens it), or one newer than parent that does
// not open, makes the run publish a snapshot from the vault, built on
// parent's intact files, which sorts after the damaged one: the newest
// snapshot is good again, and gc can remove the damaged one.
func servable(parent *snapshot.Snapshot, newest string, log *slog.Logger) bool {
	if parent.ID != newest {
		log.Warn("the newest snapshot does not open; publishing one from the vault after it", "newest", newest, "built_on", parent.ID)
		return false
	}
	if err := parent.CheckFiles(snapshot.OpenOptions{VerifyFast: true}, slices.Collect(maps.Keys(parent.Manifest.Files))...); err != nil {
		log.Warn("the newest snapshot is damaged; publishing one from the vault after it", "err", err)
		return false
	}
	return true
}

// indexerKinds are the warnings a run finds again every time (walking,
// reading, resolving); all others come from parsing a note and are carried
// over with the note when it is reused.
var indexerKinds = []string{
	format.WarnTooLarge, format.WarnBinary, format.WarnSymlinkLoop, format.WarnSymlinkOutside,
	format.WarnUnreadable, format.WarnPathConflict, format.WarnDuplicateEdgeID,
	format.WarnUnresolvedCodeLink, format.WarnCodeSkipped,
}

// resolveKinds are the indexer's warnings that come from resolving links
// and reading repositories, not from walking the vault.
var resolveKinds = []string{format.WarnDuplicateEdgeID, format.WarnUnresolvedCodeLink, format.WarnCodeSkipped}

func isIndexerKind(kind string) bool { return slices.Contains(indexerKinds, kind) }

// sameInputs reports whether the notes, the problems found walking the
// vault and the options are as parent recorded them: whether a run would
// build the parent's tables again.
func sameInputs(parent *snapshot.Snapshot, read []readFile, walkWarnings []format.Warning, opts Options) bool {
	m := parent.Manifest
	if !equalOptions(m.Options, opts.manifestOptions()) {
		return false
	}
	n := 0
	for _, r := range read {
		if r.Warning != nil {
			continue
		}
		n++
		if sig, ok := m.Notes[r.Path]; !ok || sig.SHA256 != r.SHA256 {
			return false
		}
	}
	if n != len(m.Notes) {
		return false
	}
	var before []format.Warning
	for _, w := range m.Warnings {
		if isIndexerKind(w.Kind) && !slices.Contains(resolveKinds, w.Kind) {
			before = append(before, w)
		}
	}
	now := slices.Clone(walkWarnings)
	sortWarnings(before)
	sortWarnings(now)
	return slices.Equal(before, now)
}

// pendingWork asks the stages what they have left to do on parent: the
// names of those with only a retry left, and whether any must rebuild.
func pendingWork(parent *snapshot.Snapshot, stages []Stage) (retry []string, rebuild bool) {
	for _, st := range stages {
		p, ok := st.(Pender)
		if !ok {
			continue
		}
		switch p.Pending(parent) {
		case PendingRetry:
			retry = append(retry, st.Name())
		case PendingRebuild:
			rebuild = true
		}
	}
	if rebuild {
		return nil, true
	}
	return retry, false
}

func equalOptions(a, b format.Options) bool {
	return a.ChunkChars == b.ChunkChars && a.MaxNoteBytes == b.MaxNoteBytes && slices.Equal(a.Ignore, b.Ignore) &&
		a.Parser == b.Parser
}

func sortWarnings(ws []format.Warning) {
	slices.SortStableFunc(ws, func(a, b format.Warning) int {
		if c := strings.Compare(a.File, b.File); c != 0 {
			return c
		}
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		if c := strings.Compare(a.Kind, b.Kind); c != 0 {
			return c
		}
		return strings.Compare(a.Message, b.Message)
	})
}
