package indexer

import (
	"io/fs"
	"syscall"
)

// statOf is the stat cache's record of fi, a note file's stat.
func statOf(fi fs.FileInfo) fileStat {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileStat{}
	}
	return fileStat{dev: st.Dev, ino: st.Ino, size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(), ok: true}
}
