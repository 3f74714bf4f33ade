package bucket

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/vaultgraph/vaultgraph/format"
)

// maxManifestBytes caps what ReadManifest reads, as archive import does.
const maxManifestBytes = 256 << 20

// Snapshots returns the ids of the snapshots in b, oldest first: every
// manifest object under snapshots/ whose name is a snapshot id. It does
// not read the manifests.
func Snapshots(ctx context.Context, b Bucket) ([]string, error) {
	objs, err := b.List(ctx, snapshotsDir)
	if err != nil {
		return nil, fmt.Errorf("list snapshots in %s: %w", b, err)
	}
	var ids []string
	for _, o := range objs {
		if id, ok := idOfManifestKey(o.Key); ok {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids, nil
}

// ErrNoSnapshot is returned when a bucket holds no snapshot, or none
// matching the id asked for.
var ErrNoSnapshot = errors.New("no such snapshot in the bucket")

// Resolve finds a snapshot of b by id, unique id prefix (at least 4
// characters, any case), or "" / "latest" for the newest.
func Resolve(ctx context.Context, b Bucket, ref string) (string, error) {
	ids, err := Snapshots(ctx, b)
	if err != nil {
		return "", err
	}
	if len(ids) == 0 {
		return "", fmt.Errorf("%w: %s holds no snapshot yet (vaultgraph snapshot push puts one there)", ErrNoSnapshot, b)
	}
	if ref == "" || ref == "latest" {
		return ids[len(ids)-1], nil
	}
	var found []string
	for _, id := range ids {
		if id == ref {
			return id, nil
		}
		if len(ref) >= 4 && strings.HasPrefix(id, strings.ToUpper(ref)) {
			found = append(found, id)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", fmt.Errorf("%w: %q is not a snapshot of %s (vaultgraph snapshot list shows local ids; %d in the bucket, newest %s)", ErrNoSnapshot, ref, b, len(ids), ids[len(ids)-1])
	}
	return "", fmt.Errorf("%w: %q matches %d snapshots of %s; give more of the id", ErrNoSnapshot, ref, len(found), b)
}

// ReadManifest downloads and decodes snapshot id's manifest object. It
// returns the bytes as published, which Pull publishes unchanged. A
// manifest of a format version this build cannot read wraps
// format.ErrUnknownVersion; one whose id or file names are wrong wraps
// ErrCorrupt.
func ReadManifest(ctx context.Context, b Bucket, id string) ([]byte, *format.Manifest, error) {
	key := ManifestKey(id)
	r, err := b.Get(ctx, key)
	if err != nil {
		return nil, nil, fmt.Errorf("read manifest of %s from %s: %w", id, b, err)
	}
	defer r.Close()
	raw, err := io.ReadAll(io.LimitReader(r, maxManifestBytes+1))
	if err != nil {
		return nil, nil, fmt.Errorf("read manifest of %s from %s: %w", id, b, err)
	}
	if len(raw) > maxManifestBytes {
		return nil, nil, fmt.Errorf("%w: %s/%s is over %d bytes", ErrCorrupt, b, key, maxManifestBytes)
	}
	// The checksum first: a changed byte is damage, even one that makes
	// the manifest read as another format version.
	if err := format.CheckManifestSum(raw); err != nil {
		return nil, nil, fmt.Errorf("%w: %s/%s does not match its manifest_sha256; %s", ErrCorrupt, b, key, repushManifest)
	}
	m, err := format.DecodeManifest(raw)
	if errors.Is(err, format.ErrUnknownVersion) {
		return nil, nil, fmt.Errorf("snapshot %s in %s: %w", id, b, err)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %s/%s: %w; %s", ErrCorrupt, b, key, err, repushManifest)
	}
	if m.ID != id {
		return nil, nil, fmt.Errorf("%w: %s/%s holds the manifest of snapshot %s; %s", ErrCorrupt, b, key, m.ID, repushManifest)
	}
	for name, fi := range m.Files {
		if !validRel(name) || fi.Size < 0 || !validSum(fi.SHA256) {
			return nil, nil, fmt.Errorf("%w: %s/%s lists an invalid file %q; %s", ErrCorrupt, b, key, name, repushManifest)
		}
	}
	return raw, m, nil
}

// repushManifest says how a damaged manifest object is mended: Push
// replaces one that does not read as the manifest of its id.
const repushManifest = "push the snapshot again from a data directory that holds it (vaultgraph snapshot push replaces a damaged manifest object)"

// ErrCorrupt is wrapped by errors about objects that are not what the
// layout or a manifest says they are.
var ErrCorrupt = errors.New("damaged object in the bucket")

// validRel accepts the file names a snapshot may hold: relative, clean,
// forward slashes, inside the snapshot directory, not the manifest.
func validRel(name string) bool {
	if name == "" || name == format.ManifestFile || strings.ContainsAny(name, "\\\x00") || strings.HasPrefix(name, "/") {
		return false
	}
	for _, seg := range strings.Split(name, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	return true
}

// sameBytes reports whether the manifest object of id holds exactly raw.
func sameBytes(ctx context.Context, b Bucket, id string, raw []byte) (bool, error) {
	r, err := b.Get(ctx, ManifestKey(id))
	if err != nil {
		return false, err
	}
	defer r.Close()
	have, err := io.ReadAll(io.LimitReader(r, int64(len(raw))+1))
	if err != nil {
		return false, err
	}
	return bytes.Equal(have, raw), nil
}
