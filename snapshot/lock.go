package snapshot

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
)

// ErrLocked is returned by Lock when another process holds the data
// directory's lock past the wait.
var ErrLocked = errors.New("data directory is locked by another indexer")

// Lock takes the exclusive lock DATA/index.lock, waiting up to wait (0: not
// at all) for a running holder to finish. The lock is an flock(2) on the
// file, so the kernel releases it when the holder exits or crashes; the pid
// written into the file is only for the error message. The returned function
// releases the lock.
func Lock(ctx context.Context, dataDir string, wait time.Duration) (release func() error, err error) {
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	path := filepath.Join(dataDir, format.LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	deadline := time.Now().Add(wait)
	for {
		err = tryLock(f)
		if err == nil {
			break
		}
		if !errors.Is(err, errWouldBlock) || !time.Now().Before(deadline) {
			holder := readHolder(f)
			f.Close()
			if errors.Is(err, errWouldBlock) {
				return nil, lockedError(shownLockPath(path), holder, wait)
			}
			return nil, fmt.Errorf("lock %s: %w", shownLockPath(path), err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	// Record who holds it, for the message another run prints.
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return func() error {
		uerr := unlockFile(f)
		return errors.Join(uerr, f.Close())
	}, nil
}

// shownLockPath is path made absolute for a message, which then names
// the same file wherever it was run from.
func shownLockPath(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// lockedError says who holds the lock at path and whether this call
// already waited for it.
func lockedError(path, holder string, wait time.Duration) error {
	if wait > 0 {
		return fmt.Errorf("%w (%s%s): still held after waiting %s; pass a longer --wait to queue behind it", ErrLocked, path, holder, wait)
	}
	return fmt.Errorf("%w (%s%s); wait for it to finish, or pass --wait 10m to queue behind it", ErrLocked, path, holder)
}

func readHolder(f *os.File) string {
	b := make([]byte, 32)
	n, _ := f.ReadAt(b, 0)
	pid := strings.TrimSpace(string(b[:n]))
	if pid == "" {
		return ""
	}
	return ", held by pid " + pid
}
