package bucket

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot/patch"
)

// A patch object, patches/<target>/<base>, makes the file content whose
// sha256 is target from the content whose sha256 is base (snapshot/patch).
// Push writes one instead of the file object files/<target> when the
// parent snapshot held a file of the same name, the bucket holds base
// (as a file object or through patches), and the patch is under half the
// file: a one-note edit changes a few pages of the graph database, and
// the patch is those pages. Every chain of patches ends at a file object
// within DefaultMaxChain patches, so a server that holds none of the
// bases replays a bounded number of them; one that holds the parent
// snapshot (every server that keeps up) applies one.
//
// The object is patchMagic, the target's and the base's sizes
// (uvarints), then the patch's operations.
const (
	patchesDir = "patches/"
	patchMagic = "vgpatch1"
)

// DefaultMaxChain is how many patches at most lead from a file object to
// any file a snapshot in the bucket names, when PushOptions.MaxChain is 0.
const DefaultMaxChain = 8

// minPatchedFile is the smallest file sent as a patch: below it the
// requests a patch costs (looking up the base's chain) outweigh its
// bytes.
const minPatchedFile = 64 << 10

// maxReplay bounds the chain a pull follows, whatever pushes wrote: a
// bucket that loops or nests deeper than any push makes is damaged.
const maxReplay = 64

// PatchKey is the key of the patch object that makes content target from
// content base (hex sha256s).
func PatchKey(target, base string) string { return patchesDir + target + "/" + base }

// sumsOfPatchKey returns the target and base a patch key names, false for
// any other key.
func sumsOfPatchKey(key string) (target, base string, ok bool) {
	rest, ok := strings.CutPrefix(key, patchesDir)
	if !ok {
		return "", "", false
	}
	target, base, ok = strings.Cut(rest, "/")
	if !ok || !validSum(target) || !validSum(base) {
		return "", "", false
	}
	return target, base, true
}

// encodePatch is the body of a patch object.
func encodePatch(targetSize, baseSize int64, ops []byte) []byte {
	out := append([]byte(patchMagic), binary.AppendUvarint(nil, uint64(targetSize))...)
	out = binary.AppendUvarint(out, uint64(baseSize))
	return append(out, ops...)
}

// decodePatchHeader reads a patch object's header from r.
func decodePatchHeader(r io.ByteReader) (targetSize, baseSize int64, err error) {
	for i := 0; i < len(patchMagic); i++ {
		c, err := r.ReadByte()
		if err != nil || c != patchMagic[i] {
			return 0, 0, errors.New("not a patch object")
		}
	}
	t, err1 := binary.ReadUvarint(r)
	b, err2 := binary.ReadUvarint(r)
	if err1 != nil || err2 != nil || t > 1<<50 || b > 1<<50 {
		return 0, 0, errors.New("a patch object's header is cut short")
	}
	return int64(t), int64(b), nil
}

// chainDepth is how many patches lead from a file object to content sum
// (size bytes) in b: 0 when b holds its file object, -1 when b holds
// neither it nor a patch of it, or only a chain longer than limit. A file
// object of sum whose size is not size is damaged (cut short by a failed
// copy, say) and counts as absent: a patch onto it could never be
// applied, so the file goes whole and a later push repairs the base.
// Below the first patch, sizes are not known and not checked; pull checks
// every file it makes.
func chainDepth(ctx context.Context, b Bucket, sum string, size int64, limit int) (int, error) {
	for depth := 0; depth <= limit; depth++ {
		if o, err := b.Head(ctx, FileKey(sum)); err == nil {
			if depth == 0 && o.Size != size {
				return -1, nil
			}
			return depth, nil
		} else if !errors.Is(err, ErrNotFound) {
			return 0, err
		}
		objs, err := b.List(ctx, patchesDir+sum+"/")
		if err != nil {
			return 0, err
		}
		next := ""
		for _, o := range objs {
			if _, base, ok := sumsOfPatchKey(o.Key); ok {
				next = base
				break
			}
		}
		if next == "" {
			return -1, nil
		}
		sum = next
	}
	return -1, nil
}

// pushPatch uploads the patch that makes f from base, the parent
// snapshot's file of the same name at basePath, when the bucket holds
// base within a chain of maxChain-1 patches and the patch is under half
// of f. It reports ok false when f is to be uploaded whole.
func pushPatch(ctx context.Context, b Bucket, dir string, f fileObject, basePath string, base format.FileInfo, maxChain int) (u uploaded, ok bool, err error) {
	depth, err := chainDepth(ctx, b, base.SHA256, base.Size, maxChain-1)
	if err != nil || depth < 0 {
		return uploaded{}, false, err
	}
	ops, err := patch.Make(basePath, base.SHA256, filepath.Join(dir, filepath.FromSlash(f.name)), f.SHA256, f.Size/2)
	if err != nil {
		return uploaded{}, false, fmt.Errorf("push %s: %w", f.name, err)
	}
	if ops == nil {
		return uploaded{}, false, nil
	}
	body := encodePatch(f.Size, base.Size, ops)
	key := PatchKey(f.SHA256, base.SHA256)
	o, err := b.Head(ctx, key)
	switch {
	case err == nil && o.Size == int64(len(body)):
		return uploaded{patched: true}, true, nil
	case err != nil && !errors.Is(err, ErrNotFound):
		return uploaded{}, false, fmt.Errorf("push %s: %w", f.name, err)
	}
	repair := err == nil
	s := sha256.Sum256(body)
	err = b.Put(ctx, key, bytes.NewReader(body), int64(len(body)), PutOptions{IfAbsent: !repair, SHA256: hex.EncodeToString(s[:])})
	if errors.Is(err, ErrExists) {
		return uploaded{patched: true}, true, nil // a concurrent push wrote it
	}
	if err != nil {
		return uploaded{}, false, fmt.Errorf("push %s as %s/%s: %w", f.name, b, key, err)
	}
	return uploaded{sent: true, repaired: repair, patched: true, bytes: int64(len(body))}, true, nil
}

// materialize writes content sum (size bytes) to dst, which must not
// exist: from its file object, or else by applying a patch of it to a
// base that local holds (path by sha256) or that is materialized first,
// following at most maxReplay patches. Every file it writes is checked
// against its sha256. It returns the bytes downloaded, and whether
// patches were used.
func materialize(ctx context.Context, b Bucket, local map[string]string, dst, name, sum string, size int64, depth int) (int64, bool, error) {
	r, err := b.Get(ctx, FileKey(sum))
	if err == nil {
		defer r.Close()
		return size, false, writeChecked(dst, r, b, FileKey(sum), name, sum, size)
	}
	if !errors.Is(err, ErrNotFound) {
		return 0, false, fmt.Errorf("pull %s: %w", name, err)
	}
	objs, err := b.List(ctx, patchesDir+sum+"/")
	if err != nil {
		return 0, false, fmt.Errorf("pull %s: %w", name, err)
	}
	var key, base string
	for _, o := range objs {
		if _, bs, ok := sumsOfPatchKey(o.Key); ok && (key == "" || local[bs] != "") {
			key, base = o.Key, bs
			if local[bs] != "" {
				break
			}
		}
	}
	switch {
	case key == "":
		return 0, false, fmt.Errorf("%w: %s/%s (%s) is missing, and no patch makes it; push the snapshot again to upload it", ErrCorrupt, b, FileKey(sum), name)
	case depth >= maxReplay:
		return 0, false, fmt.Errorf("%w: %s (%s) is more than %d patches from a file object; vaultgraph snapshot push keeps chains to %d: the bucket was written otherwise", ErrCorrupt, FileKey(sum), name, maxReplay, DefaultMaxChain)
	}
	pr, err := b.Get(ctx, key)
	if err != nil {
		return 0, false, fmt.Errorf("pull %s: %s/%s: %w", name, b, key, err)
	}
	defer pr.Close()
	body, err := io.ReadAll(io.LimitReader(pr, size+64)) // a patch is under half of its file
	if err != nil {
		return 0, false, fmt.Errorf("pull %s: %s/%s: %w", name, b, key, err)
	}
	damaged := func(why string) error {
		return fmt.Errorf("%w: %s/%s (a patch making %s) %s; delete the object and push the snapshot again", ErrCorrupt, b, key, name, why)
	}
	br := bytes.NewReader(body)
	targetSize, baseSize, err := decodePatchHeader(br)
	switch {
	case err != nil:
		return 0, false, damaged(err.Error())
	case targetSize != size:
		return 0, false, damaged(fmt.Sprintf("makes %d bytes, the file has %d", targetSize, size))
	}
	downloaded := int64(len(body))
	basePath := local[base]
	if basePath != "" && !holds(basePath, base, baseSize) {
		// The local copy is damaged (a bad disk, an edited cache): the
		// base comes from the bucket instead, and the local snapshot is
		// left for snapshot verify to name.
		basePath = ""
	}
	if basePath == "" {
		f, err := os.CreateTemp(filepath.Dir(dst), ".patch-base-*")
		if err != nil {
			return 0, false, fmt.Errorf("pull %s: %w", name, err)
		}
		basePath = f.Name()
		f.Close()
		os.Remove(basePath)
		defer os.Remove(basePath)
		n, _, err := materialize(ctx, b, local, basePath, name, base, baseSize, depth+1)
		downloaded += n
		if err != nil {
			return downloaded, true, err
		}
	}
	bf, err := os.Open(basePath)
	if err != nil {
		return downloaded, true, fmt.Errorf("pull %s: %w", name, err)
	}
	defer bf.Close()
	if st, err := bf.Stat(); err != nil || st.Size() != baseSize {
		return downloaded, true, damaged(fmt.Sprintf("names a base of %d bytes, which the file it makes does not have", baseSize))
	}
	pipeR, pipeW := io.Pipe()
	go func() {
		pipeW.CloseWithError(patch.Apply(pipeW, br, bf, baseSize, size))
	}()
	err = writeChecked(dst, pipeR, b, key, name, sum, size)
	pipeR.CloseWithError(errors.New("pull: the patched file was read to its end"))
	if errors.Is(err, patch.ErrCorrupt) {
		return downloaded, true, damaged(err.Error())
	}
	return downloaded, true, err
}

// writeChecked writes r to dst, which must not exist, checking that it is
// size bytes with the hex sha256 sum; key names where r comes from.
func writeChecked(dst string, r io.Reader, b Bucket, key, name, sum string, size int64) error {
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("pull %s: %w", name, err)
	}
	h := sha256.New()
	// One byte more than declared, to tell a longer object from a match.
	n, err := io.Copy(io.MultiWriter(f, h), io.LimitReader(r, size+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	switch {
	case errors.Is(err, patch.ErrCorrupt):
		return err
	case err != nil:
		return fmt.Errorf("pull %s from %s/%s: %w", name, b, key, err)
	case n != size:
		verb := "has"
		if strings.HasPrefix(key, patchesDir) {
			verb = "makes"
		}
		return fmt.Errorf("%w: %s/%s (%s) %s %s bytes, the manifest says %d; delete the object and push the snapshot again", ErrCorrupt, b, key, name, verb, sizeWord(n, size), size)
	case hex.EncodeToString(h.Sum(nil)) != sum:
		return fmt.Errorf("%w: %s/%s (%s): sha256 mismatch; delete the object and push the snapshot again", ErrCorrupt, b, key, name)
	}
	return nil
}

// holds reports whether the file at path is size bytes with the hex
// sha256 sum: a local file a patch is applied to is checked first, since
// the result's check could not tell a damaged base from a damaged patch.
func holds(path, sum string, size int64) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	return err == nil && n == size && hex.EncodeToString(h.Sum(nil)) == sum
}
