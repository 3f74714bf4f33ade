// Package patch turns one file into another by copying pieces of it and
// adding literal bytes: what a delta archive (snapshot/archive) and a
// bucket (snapshot/bucket) send for a file that changed a little from
// the parent snapshot's. Pieces are cut at content-defined boundaries, so
// an insertion moves the boundaries after it along with the bytes.
package patch

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
)

// The cutting: a gear rolling hash, as rsync-like tools and backup stores
// use; each piece of the new file is either a copy of bytes of the base
// file or literal bytes. A patch is a sequence of operations:
//
//	'c' uvarint(offset) uvarint(length)   copy length bytes of the base file from offset
//	'l' uvarint(length) bytes             length literal bytes
//
// Apply writes at most the size the caller declares for the new file;
// the caller checks its sha256 like any other file's.

// ErrCorrupt is wrapped by Apply's errors about a patch that is not one:
// an operation cut short or unknown, a copy outside the base file, more
// bytes than the file may have.
var ErrCorrupt = errors.New("damaged patch")

// Content-defined piece sizes: boundaries where the gear hash's low
// pieceBits bits are zero, never within minPiece bytes of the last one,
// always after maxPiece: pieces of about 5 KiB on average, near the 4 KiB
// pages a graph database changes in place.
const (
	pieceBits = 12
	minPiece  = 1 << 10
	maxPiece  = 32 << 10
)

const (
	opCopy    = 'c'
	opLiteral = 'l'
)

// gear is the rolling hash's table: 256 fixed pseudo-random words
// (splitmix64 from a constant seed), so that every build cuts alike.
var gear = func() (t [256]uint64) {
	x := uint64(0x9E3779B97F4A7C15)
	for i := range t {
		x += 0x9E3779B97F4A7C15
		z := x
		z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
		z = (z ^ (z >> 27)) * 0x94D049BB133111EB
		t[i] = z ^ (z >> 31)
	}
	return t
}()

// pieces calls piece with every content-defined piece of r, in order, and
// returns the sha256 of all of r. The gear hash shifts a byte out after 64
// more, so the first minPiece-64 bytes of a piece, which can hold no
// boundary, are not hashed at all.
func pieces(r io.Reader, piece func(off int64, b []byte) error) (string, error) {
	h := sha256.New()
	block := make([]byte, 1<<20)
	buf := make([]byte, 0, maxPiece)
	var off int64
	var g uint64
	const mask = 1<<pieceBits - 1
	flush := func() error {
		if len(buf) == 0 {
			return nil
		}
		err := piece(off, buf)
		off += int64(len(buf))
		buf, g = buf[:0], 0
		return err
	}
	for {
		n, rerr := r.Read(block)
		data := block[:n]
		h.Write(data)
		for len(data) > 0 {
			l, i, cut := len(buf), 0, -1
			if skip := minPiece - 64 - l; skip > 0 {
				i = min(skip, len(data))
				l += i
			}
			for ; i < len(data); i++ {
				g = g<<1 + gear[data[i]]
				l++
				if (l >= minPiece && g&mask == 0) || l >= maxPiece {
					cut = i
					break
				}
			}
			if cut < 0 {
				buf = append(buf, data...)
				break
			}
			buf = append(buf, data[:cut+1]...)
			data = data[cut+1:]
			if err := flush(); err != nil {
				return "", err
			}
		}
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			return "", rerr
		}
	}
	if err := flush(); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// pieceRef is where a piece is in the base's file.
type pieceRef struct{ off, n int64 }

// errPatchTooLarge stops a patch that would not be smaller than limit.
var errPatchTooLarge = errors.New("patch not smaller than the file")

// Make returns the patch that turns the base file at basePath
// (whose sha256 must be baseSum) into the file at path (whose sha256 must
// be sum), or nil when the patch would be limit bytes or more, or the base
// file is not what its manifest says: the file is then sent whole.
func Make(basePath, baseSum, path, sum string, limit int64) ([]byte, error) {
	bf, err := os.Open(basePath)
	if err != nil {
		return nil, nil // no base file to patch: send it whole
	}
	index := map[[sha256.Size]byte]pieceRef{}
	got, err := pieces(bf, func(off int64, b []byte) error {
		k := sha256.Sum256(b)
		if _, ok := index[k]; !ok {
			index[k] = pieceRef{off, int64(len(b))}
		}
		return nil
	})
	bf.Close()
	if err != nil || got != baseSum {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out bytes.Buffer
	var pending pieceRef // a copy not yet written, merged with the next adjacent one
	havePending := false
	flushCopy := func() {
		if havePending {
			out.WriteByte(opCopy)
			out.Write(binary.AppendUvarint(nil, uint64(pending.off)))
			out.Write(binary.AppendUvarint(nil, uint64(pending.n)))
			havePending = false
		}
	}
	got, err = pieces(f, func(_ int64, b []byte) error {
		if ref, ok := index[sha256.Sum256(b)]; ok {
			if havePending && pending.off+pending.n == ref.off {
				pending.n += ref.n
			} else {
				flushCopy()
				pending, havePending = ref, true
			}
		} else {
			flushCopy()
			out.WriteByte(opLiteral)
			out.Write(binary.AppendUvarint(nil, uint64(len(b))))
			out.Write(b)
		}
		if int64(out.Len()) >= limit {
			return errPatchTooLarge
		}
		return nil
	})
	flushCopy()
	switch {
	case errors.Is(err, errPatchTooLarge) || int64(out.Len()) >= limit:
		return nil, nil
	case err != nil:
		return nil, err
	case got != sum:
		return nil, fmt.Errorf("sha256 mismatch (run vaultgraph snapshot verify)")
	}
	return out.Bytes(), nil
}

// Apply writes to w the file the patch read from r makes of base
// (size baseSize), at most limit bytes: anything that reads past the
// base's file, past limit, or is not an operation wraps ErrCorrupt.
func Apply(w io.Writer, r io.Reader, base io.ReaderAt, baseSize, limit int64) error {
	br := bufio.NewReader(r)
	var written int64
	for {
		op, err := br.ReadByte()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		switch op {
		case opCopy:
			off, err1 := binary.ReadUvarint(br)
			n, err2 := binary.ReadUvarint(br)
			if err := errors.Join(err1, err2); err != nil {
				return fmt.Errorf("%w: a patch operation is cut short", ErrCorrupt)
			}
			if off > uint64(baseSize) || n > uint64(baseSize)-off || n > uint64(limit-written) {
				return fmt.Errorf("%w: a patch copies bytes %d..%d of a base file of %d bytes", ErrCorrupt, off, off+n, baseSize)
			}
			if _, err := io.Copy(w, io.NewSectionReader(base, int64(off), int64(n))); err != nil {
				return err
			}
			written += int64(n)
		case opLiteral:
			n, err := binary.ReadUvarint(br)
			if err != nil {
				return fmt.Errorf("%w: a patch operation is cut short", ErrCorrupt)
			}
			if n > uint64(limit-written) {
				return fmt.Errorf("%w: a patch writes more than the file's %d bytes", ErrCorrupt, limit)
			}
			m, err := io.CopyN(w, br, int64(n))
			if err != nil {
				if errors.Is(err, io.EOF) {
					return fmt.Errorf("%w: a patch's literal bytes are cut short", ErrCorrupt)
				}
				return err
			}
			written += m
		default:
			return fmt.Errorf("%w: a patch holds operation %q", ErrCorrupt, op)
		}
	}
}
