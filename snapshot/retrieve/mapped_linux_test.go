package retrieve_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/format"
)

// TestVectorFilesAreMappedOnce: the retriever reads the vector files the
// search index mapped; a second map of each held their pages twice in the
// process's resident memory (and their residual planes twice on the heap).
func TestVectorFilesAreMappedOnce(t *testing.T) {
	r := demoRetriever(t)
	smaps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{format.ChunkVectorsFile, format.EdgeVectorsFile} {
		path := filepath.Join(r.SnapshotDir(), name)
		if n := strings.Count(string(smaps), " "+path+"\n"); n != 1 {
			t.Errorf("%s is mapped %d times, want once", name, n)
		}
	}
}
