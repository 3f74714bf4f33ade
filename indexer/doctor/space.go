package doctor

import (
	"context"
	"fmt"
	"syscall"

	"github.com/vaultgraph/vaultgraph/format"
)

// checkSpace: the file system holding the data directory has room for
// another snapshot the size of the newest (an upper bound: unchanged files
// are hard links to the parent's).
func (st *state) checkSpace(context.Context) Check {
	c := Check{Name: "space"}
	dir := existingParent(st.cfg.Data)
	free, err := st.cfg.FreeSpace(dir)
	if err != nil {
		c.Status, c.Summary = Warn, fmt.Sprintf("free space on %s cannot be read: %v", dir, err)
		return c
	}
	if st.newest == nil {
		c.Status, c.Summary = OK, fmt.Sprintf("%s free; no snapshot yet to measure against", bytesText(free))
		return c
	}
	need := snapshotBytes(st.newest)
	switch {
	case free < need:
		return fail(c, fmt.Sprintf("%s free, but the newest snapshot takes %s: the next index run cannot publish", bytesText(free), bytesText(need)),
			"free space on that file system (vaultgraph snapshot gc --keep 2 removes old snapshots), or move the data directory")
	case free < 2*need:
		c.Status, c.Summary = Warn, fmt.Sprintf("%s free, room for one more snapshot of %s", bytesText(free), bytesText(need))
		c.Fix = "free space soon (vaultgraph snapshot gc --keep 2)"
	default:
		c.Status, c.Summary = OK, fmt.Sprintf("%s free, %d snapshots the size of the newest (%s)", bytesText(free), free/max(need, 1), bytesText(need))
	}
	return c
}

// snapshotBytes is the size of every file a manifest lists, plus a
// manifest's worth for the manifest itself.
func snapshotBytes(m *format.Manifest) uint64 {
	var n uint64
	for _, f := range m.Files {
		n += uint64(max(f.Size, 0))
	}
	return n + 64<<10
}

// freeSpace is statfs(2)'s blocks available to unprivileged writers.
func freeSpace(dir string) (uint64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return uint64(st.Bavail) * uint64(st.Bsize), nil
}

// bytesText writes n in binary units, one decimal.
func bytesText(n uint64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := uint64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
