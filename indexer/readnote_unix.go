//go:build unix

package indexer

import (
	"io"
	"io/fs"
	"syscall"
)

// readNote reads the file at abs, up to limit bytes (readAtMost), with
// plain system calls: os.Open on Linux tries to register every file with
// the network poller, which costs four fcntl calls and a failing
// epoll_ctl per note (50,000 system calls for a 10,000-note vault, at
// every run). Errors read as os's do.
func readNote(abs string, size, limit int64) ([]byte, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(abs, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: abs, Err: err}
	}
	defer syscall.Close(fd)
	return readAtMost(fdReader{fd, abs}, size, limit)
}

// fdReader reads an open file descriptor as os.File.Read does.
type fdReader struct {
	fd   int
	path string
}

func (r fdReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		n, err := syscall.Read(r.fd, p)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return 0, &fs.PathError{Op: "read", Path: r.path, Err: err}
		case n == 0:
			return 0, io.EOF
		}
		return n, nil
	}
}
