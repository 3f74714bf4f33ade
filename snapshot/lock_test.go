package snapshot

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
)

// TestLockedMessage: the error of a lock another holder has says whether
// this call waited, and names the lock file by its absolute path however
// the data directory was given.
func TestLockedMessage(t *testing.T) {
	parent := t.TempDir()
	t.Chdir(parent)
	release, err := Lock(context.Background(), "data", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	holder := "(" + filepath.Join(parent, "data", format.LockFile) + ", held by pid " + strconv.Itoa(os.Getpid()) + ")"
	for _, tc := range []struct {
		wait      time.Duration
		want, not string
	}{
		{0, holder + "; wait for it to finish, or pass --wait 10m", "after waiting"},
		{20 * time.Millisecond, holder + ": still held after waiting 20ms; pass a longer --wait", "wait for it"},
	} {
		_, err := Lock(context.Background(), "data", tc.wait)
		if !errors.Is(err, ErrLocked) {
			t.Fatalf("wait %v: %v, want ErrLocked", tc.wait, err)
		}
		if msg := err.Error(); !strings.Contains(msg, tc.want) || strings.Contains(msg, tc.not) {
			t.Errorf("wait %v: %q, want %q", tc.wait, msg, tc.want)
		}
	}
}
