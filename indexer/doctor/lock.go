package doctor

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vaultgraph/vaultgraph/format"
)

// locksFile lists the kernel's file locks (proc(5)).
var locksFile = "/proc/locks"

// checkLock: who holds DATA/index.lock, read from /proc/locks so that the
// check never takes the lock a starting indexer needs.
func (st *state) checkLock(context.Context) Check {
	c := Check{Name: "lock"}
	path := filepath.Join(st.cfg.Data, format.LockFile)
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		c.Status, c.Summary = OK, "free: no indexer has run here yet"
		return c
	}
	if err != nil {
		c.Status, c.Summary = Warn, fmt.Sprintf("%s cannot be read: %v", path, err)
		return c
	}
	written := lockPID(path)
	holder, known, err := flockHolder(fi)
	switch {
	case err != nil || !known:
		c.Status, c.Summary = Info, "cannot tell whether an indexer holds the lock on this system"
		if err != nil {
			c.Summary += fmt.Sprintf(" (%v)", err)
		}
		return c
	case holder == 0 && written != 0 && !alive(written):
		c.Status, c.Summary = OK, fmt.Sprintf("free; %s names pid %d, an earlier run that is gone (a stale pid is harmless: the kernel released its lock)", format.LockFile, written)
		return c
	case holder == 0:
		c.Status, c.Summary = OK, "free: no indexer is running"
		return c
	}
	since := st.cfg.Now().Sub(fi.ModTime()).Round(time.Second)
	cmd := commandLine(holder)
	c.Status, c.Summary = OK, fmt.Sprintf("held by pid %d for %s: %s", holder, since, cmd)
	if since > 6*time.Hour && !strings.Contains(cmd, "--watch") && !strings.Contains(cmd, "--poll") {
		c.Status = Warn
		c.Fix = fmt.Sprintf("a run holding it for %s may be stuck: look at pid %d (kill -TERM %d ends it cleanly)", since, holder, holder)
	}
	return c
}

// lockPID is the pid the holder wrote into the lock file, 0 if none.
func lockPID(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}

// flockHolder finds the process holding an flock(2) on the file fi
// describes. known is false where /proc/locks cannot be read.
func flockHolder(fi os.FileInfo) (pid int, known bool, err error) {
	sys, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false, nil
	}
	f, err := os.Open(locksFile)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	defer f.Close()
	// Lines read "1: FLOCK  ADVISORY  WRITE 1234 fd:01:567 0 EOF"; the
	// device is major:minor in hex.
	want := fmt.Sprintf("%02x:%02x:%d", unix.Major(uint64(sys.Dev)), unix.Minor(uint64(sys.Dev)), sys.Ino)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[1] != "FLOCK" || fields[5] != want {
			continue
		}
		if p, err := strconv.Atoi(fields[4]); err == nil {
			return p, true, nil
		}
	}
	return 0, true, sc.Err()
}

func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// commandLine is pid's command line, as ps shows it.
func commandLine(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || len(b) == 0 {
		return "(command line unknown)"
	}
	return strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
}
