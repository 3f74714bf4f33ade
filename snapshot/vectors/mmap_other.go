//go:build !unix

package vectors

import (
	"io"
	"os"
)

// mapFile reads the whole file where memory maps are not available.
func mapFile(f *os.File, size int64) ([]byte, error) {
	b := make([]byte, size)
	_, err := io.ReadFull(f, b)
	return b, err
}

func unmap([]byte) error { return nil }

// dropPages has nothing to drop: the file was read onto the heap.
func dropPages([]byte) {}

// allocAnon has no anonymous maps to offer here: the caller uses the heap.
func allocAnon(int) []byte { return nil }

// allocHuge has no anonymous maps to offer here: the caller uses the heap.
func allocHuge(int) []byte { return nil }
