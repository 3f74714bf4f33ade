package indexer

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/vaultgraph/vaultgraph/format"
)

// readFile is a note file read into memory and signed.
type readFile struct {
	vaultFile
	Content []byte
	SHA256  string
	Warning *format.Warning // set when the file cannot be indexed
	// unread is set when the stat cache vouched for the file: it was not
	// read, Content is nil and SHA256 is the parent's signature.
	unread bool
}

// readAll reads and signs every file with bounded parallelism, except
// those signed says are signed already (the stat cache's): they are left
// unread. A file that cannot be read or holds binary data gets a warning
// instead of content; only a cancelled context stops the run.
func readAll(ctx context.Context, files []vaultFile, workers int, maxBytes int64, signed func(vaultFile) (string, bool)) ([]readFile, error) {
	out := make([]readFile, len(files))
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for i := range files {
		if sum, ok := signed(files[i]); ok {
			out[i] = readFile{vaultFile: files[i], SHA256: sum, unread: true}
			continue
		}
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			out[i] = readOne(files[i], maxBytes)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// readEvery is readAll's signed for reading every file.
func readEvery(vaultFile) (string, bool) { return "", false }

func readOne(f vaultFile, maxBytes int64) readFile {
	r := readFile{vaultFile: f}
	fail := func(kind, msg string) readFile {
		r.Warning = &format.Warning{File: f.Path, Kind: kind, Message: msg}
		return r
	}
	// Read at most one byte past the limit: the file may have grown since
	// the walk saw its size.
	content, err := readNote(f.Abs, f.Size, maxBytes+1)
	if err != nil {
		return fail(format.WarnUnreadable, err.Error())
	}
	if int64(len(content)) > maxBytes {
		return fail(format.WarnTooLarge, tooLarge(maxBytes))
	}
	if i := bytes.IndexByte(content, 0); i >= 0 {
		line := bytes.Count(content[:i], []byte{'\n'}) + 1
		r.Warning = &format.Warning{File: f.Path, Line: line, Kind: format.WarnBinary, Message: "holds NUL bytes: binary, not a Markdown note; not indexed"}
		return r
	}
	sum := sha256.Sum256(content)
	r.Content, r.SHA256, r.Size = content, hex.EncodeToString(sum[:]), int64(len(content))
	return r
}

// readAtMost reads r to its end, or to limit bytes, into a buffer sized
// for the size the walk saw plus one byte (the end of the file, or that it
// grew, shows at the next read): most notes take one read and no copying,
// where io.ReadAll starts at 512 bytes and grows.
func readAtMost(r io.Reader, size, limit int64) ([]byte, error) {
	size = max(0, min(size, limit-1))
	b := make([]byte, 0, size+1)
	for int64(len(b)) < limit {
		if len(b) == cap(b) {
			b = slices.Grow(b, 1)
		}
		end := int64(cap(b))
		if end > limit {
			end = limit
		}
		n, err := r.Read(b[len(b):end])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
	return b, nil
}
