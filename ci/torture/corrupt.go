package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
)

// damages are the ways a file of a snapshot is damaged.
var damages = []struct {
	name  string
	apply func(path string) error
}{
	{"flip a byte", func(p string) error {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if len(b) == 0 {
			return fmt.Errorf("%s is empty", p)
		}
		b[len(b)/2] ^= 0x5a
		return os.WriteFile(p, b, 0o644)
	}},
	{"truncate", func(p string) error {
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		return os.Truncate(p, fi.Size()/2)
	}},
	{"delete", os.Remove},
}

// corruptGroup damages every file of a full snapshot, one at a time, in
// a copy published as the newest snapshot, while a server with default
// options serves the undamaged one.
func corruptGroup(s *suite) {
	vault := filepath.Join(s.tmp, "corrupt-vault")
	data := filepath.Join(s.tmp, "corrupt-data")
	var srv *server
	var base *snapshot.Snapshot
	if !s.run("index the demo vault with every stage, start a server", 10*time.Minute, func(ctx context.Context) error {
		if err := exec.CommandContext(ctx, "cp", "-R", "testdata/demo-vault", vault).Run(); err != nil {
			return err
		}
		if _, err := s.vgOK(ctx, "index", "--vault", vault, "--data", data, "--quiet"); err != nil {
			return err
		}
		entries, err := snapshot.List(data)
		if err != nil || len(entries) != 1 {
			return fmt.Errorf("want one snapshot: %v %v", entries, err)
		}
		if base, err = snapshot.Open(entries[0].Dir, snapshot.OpenOptions{VerifyChecksums: true}); err != nil {
			return err
		}
		for _, want := range []string{format.GraphFile, format.NotesFile, format.EdgesFile, format.ChunksFile} {
			if _, ok := base.Manifest.Files[want]; !ok {
				return fmt.Errorf("the snapshot has no %s: %v", want, base.Manifest.Files)
			}
		}
		srv, err = s.startServer(ctx, data)
		return err
	}) {
		return
	}
	defer func() {
		s.run("the server stops cleanly", 3*time.Minute, func(ctx context.Context) error { return srv.stop() })
	}()
	files := []string{format.ManifestFile}
	for name := range base.Manifest.Files {
		files = append(files, name)
	}
	sort.Strings(files)
	serving := base.ID
	s.run("control: an undamaged copy is swapped to", 5*time.Minute, func(ctx context.Context) error {
		id, err := publishCopy(data, base, "", nil)
		if err != nil {
			return err
		}
		if _, err := s.vgOK(ctx, "snapshot", "verify", "--data", data, id); err != nil {
			return err
		}
		if err := reload(ctx, srv); err != nil {
			return err
		}
		st, err := srv.status(ctx)
		if err != nil {
			return err
		}
		if st.Snapshot != id {
			return fmt.Errorf("the server serves %s, not the undamaged copy %s", st.Snapshot, id)
		}
		serving = id
		return nil
	})
	for _, file := range files {
		for _, d := range damages {
			s.run(fmt.Sprintf("%s: %s", file, d.name), 5*time.Minute, func(ctx context.Context) error {
				before, err := srv.status(ctx)
				if err != nil {
					return err
				}
				id, err := publishCopy(data, base, file, d.apply)
				if err != nil {
					return err
				}
				dir := snapshot.Dir(data, id)
				defer os.RemoveAll(dir)
				r, err := s.vg(ctx, "snapshot", "verify", "--data", data, id)
				if err != nil {
					return err
				}
				if r.code == 0 || crashed(r.stderr) {
					return fmt.Errorf("snapshot verify accepted the damaged copy: %s %s", r.stdout, r)
				}
				if err := reload(ctx, srv); err != nil {
					return err
				}
				after, err := srv.status(ctx)
				if err != nil {
					return err
				}
				if after.Snapshot != before.Snapshot || after.Snapshot != serving {
					return fmt.Errorf("the server swapped from %s to %s", before.Snapshot, after.Snapshot)
				}
				// A copy without a manifest is no snapshot at all: it is not
				// counted, only never served.
				if file != format.ManifestFile || d.name != "delete" {
					if after.Snapshots.Rejected <= before.Snapshots.Rejected {
						return fmt.Errorf("the server did not count the damaged copy as rejected (%d before, %d after)",
							before.Snapshots.Rejected, after.Snapshots.Rejected)
					}
				}
				n, err := srv.countQuery(ctx, "MATCH (n) RETURN count(n)")
				if err != nil {
					return fmt.Errorf("the old snapshot does not answer: %w", err)
				}
				if n == 0 {
					return fmt.Errorf("the old snapshot answers with no notes")
				}
				return srv.alive(ctx)
			})
		}
	}
	s.run("the demo vault was not written to", time.Minute, func(ctx context.Context) error {
		b, err := treeSum("testdata/demo-vault")
		if err != nil {
			return err
		}
		a, err := treeSum(vault)
		if err != nil {
			return err
		}
		// The copy has its own modification times: compare contents.
		return sameTree(contents(b), contents(a))
	})
}

// contents drops the modification times from a treeSum.
func contents(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		if f := strings.Fields(v); f[0] == "file" && len(f) == 4 {
			v = strings.Join(f[:3], " ")
		}
		out[k] = v
	}
	return out
}

// publishCopy copies base as a new, newest snapshot of data, damaging
// file with damage first when damage is not nil. The copy is written
// under a name no reader takes for a snapshot and renamed into place, as
// the indexer publishes.
func publishCopy(data string, base *snapshot.Snapshot, file string, damage func(string) error) (string, error) {
	entries, err := snapshot.List(data)
	if err != nil {
		return "", err
	}
	id := format.NewSnapshotID(time.Now(), entries[len(entries)-1].ID)
	tmp := filepath.Join(snapshot.SnapshotsDir(data), ".torture-"+id)
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return "", err
	}
	names := []string{}
	for name := range base.Manifest.Files {
		names = append(names, name)
	}
	for _, name := range names {
		if err := copyFile(filepath.Join(base.Dir, name), filepath.Join(tmp, name)); err != nil {
			return "", err
		}
	}
	m := *base.Manifest
	m.ID, m.Parent = id, base.ID
	b, err := m.Encode()
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(tmp, format.ManifestFile), b, 0o644); err != nil {
		return "", err
	}
	if damage != nil {
		if err := damage(filepath.Join(tmp, file)); err != nil {
			return "", err
		}
	}
	return id, os.Rename(tmp, snapshot.Dir(data, id))
}

func copyFile(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// reload asks the server to look for new snapshots now and waits for its
// answer.
func reload(ctx context.Context, srv *server) error {
	code, body, err := srv.do(ctx, http.MethodPost, "/admin/reload", "", nil)
	if err != nil {
		return err
	}
	if code != http.StatusOK {
		return fmt.Errorf("/admin/reload: %d %s", code, body)
	}
	return nil
}
