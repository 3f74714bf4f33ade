//go:build unix

package vectors

import (
	"fmt"
	"os"
	"syscall"
)

// mapFile maps the whole of f read-only. An empty file maps to nil.
func mapFile(f *os.File, size int64) ([]byte, error) {
	if size == 0 {
		return nil, nil
	}
	if int64(int(size)) != size {
		return nil, fmt.Errorf("mmap %s: %d bytes is too large for this platform", f.Name(), size)
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("mmap %s: %w", f.Name(), err)
	}
	return b, nil
}

func unmap(b []byte) error {
	if b == nil {
		return nil
	}
	return syscall.Munmap(b)
}

// allocAnon maps size bytes of anonymous memory, outside the Go heap;
// nil if it cannot (or size is 0). unmap releases it.
func allocAnon(size int) []byte {
	if size <= 0 {
		return nil
	}
	b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil
	}
	return b
}

// allocHuge maps size bytes of anonymous memory (rounded up to huge pages)
// and asks for huge pages; nil if it cannot. unmap releases it.
func allocHuge(size int) []byte {
	size = (size + hugePage - 1) / hugePage * hugePage
	b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil
	}
	adviseHuge(b)
	return b
}
