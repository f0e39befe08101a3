package witness

import (
	"os"
	"syscall"
)

func inode(st os.FileInfo) (uint64, bool) {
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return s.Ino, true
}
