package patch

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkMake makes the patch between two 32 MiB files that differ in
// two 4 KiB pages, the shape of a graph database after a one-note edit
// (MB/s counts both files, which Make reads whole).
func BenchmarkMake(b *testing.B) {
	dir := b.TempDir()
	base := seededBytes(1, 32<<20)
	edited := append([]byte(nil), base...)
	copy(edited[5<<20:], seededBytes(2, 4096))
	copy(edited[20<<20:], seededBytes(3, 4096))
	bp, np := filepath.Join(dir, "base"), filepath.Join(dir, "new")
	os.WriteFile(bp, base, 0o644)
	os.WriteFile(np, edited, 0o644)
	bs, _ := pieces(bytes.NewReader(base), func(int64, []byte) error { return nil })
	ns, _ := pieces(bytes.NewReader(edited), func(int64, []byte) error { return nil })
	b.SetBytes(64 << 20)
	b.ResetTimer()
	for range b.N {
		p, err := Make(bp, bs, np, ns, 16<<20)
		if err != nil || p == nil {
			b.Fatal(err)
		}
	}
}
