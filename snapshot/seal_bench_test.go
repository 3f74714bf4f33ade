package snapshot

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/vaultgraph/vaultgraph/format"
)

var benchSealDir = flag.String("snapshot.seal", "", "a snapshot directory whose files BenchmarkSealFiles copies and seals")

// BenchmarkSealFiles copies the files of a published snapshot into a fresh
// directory and seals them as Publish does (sha256 and xxh64 of each,
// fsync), timing the sealing alone:
//
//	go test ./snapshot -run '^$' -bench SealFiles -benchtime 5x -snapshot.seal D/snapshots/ID
func BenchmarkSealFiles(b *testing.B) {
	if *benchSealDir == "" {
		b.Skip("give -snapshot.seal a snapshot directory")
	}
	ents, err := os.ReadDir(*benchSealDir)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		dir, err := os.MkdirTemp(b.TempDir(), "seal")
		if err != nil {
			b.Fatal(err)
		}
		files := 0
		for _, e := range ents {
			if !e.Type().IsRegular() || e.Name() == format.ManifestFile {
				continue
			}
			if err := copyBenchFile(filepath.Join(*benchSealDir, e.Name()), filepath.Join(dir, e.Name())); err != nil {
				b.Fatal(err)
			}
			files++
		}
		b.StartTimer()
		sealed, err := sealFiles(dir, nil, nil)
		if err != nil || len(sealed) != files {
			b.Fatalf("sealed %d of %d files: %v", len(sealed), files, err)
		}
		b.StopTimer()
		if err := os.RemoveAll(dir); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

func copyBenchFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}
