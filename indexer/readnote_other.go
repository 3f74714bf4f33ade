//go:build !unix

package indexer

import "os"

// readNote reads the file at abs, up to limit bytes (readAtMost).
func readNote(abs string, size, limit int64) ([]byte, error) {
	fh, err := os.Open(abs)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return readAtMost(fh, size, limit)
}
