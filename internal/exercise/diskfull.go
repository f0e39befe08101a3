package exercise

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/cudalessons/lessons/internal/failure"
)

// The least a build's file system must have left for a failed build to be
// the file's: nvcc writes its intermediate files (tens of MiB for a large
// exercise) beside the program.
const (
	minFreeBytes  = 256 << 20
	minFreeInodes = 1024
)

// diskFull is the machine's error for a build that failed where its
// folder's file system was full: a classmate's run can fill the disk
// (files of the size limit, one after another, for as long as it may
// run), and nvcc then fails in ways of its own ("error while writing
// generated C++ file: No space left on device", or its exit status
// alone). Only what the file system says counts (statfs), never what the
// build printed: its log holds the student's own #error lines. nil when
// the file system has room, or when what the build left in its own
// folder is what it is short of (a file whose build fills the disk by
// itself is the file's failure, judged, not graded again and again).
func diskFull(dir string) error {
	short := diskShort(dir)
	if short == "" || filledItself(dir) {
		return nil
	}
	return failure.Toolf("the file system of %s was full (%s): the build failed for want of room, not for the file; free space there (or set TMPDIR elsewhere) and run again", dir, short)
}

// saysNoSpace says whether a build's log says it ran out of room: a hint
// that the disk was full while it ran, worth a second build, never a
// verdict (a student's file can print it).
func saysNoSpace(log string) bool {
	return strings.Contains(log, "No space left on device") || strings.Contains(log, "Disk quota exceeded")
}

// runDiskFull is the machine's error for a run that failed where its
// folder's file system was full: a classmate's run, where runs' folders
// are no file systems of their own, can use up its space or inodes. Only
// what the file system says counts, never what the program printed (it
// could print "No space left on device" to be graded again and again).
func runDiskFull(dir string) error {
	short := diskShort(dir)
	if short == "" || filledItself(dir) {
		return nil
	}
	return failure.Toolf("the file system of %s was full (%s): the run failed where it had no room to write, which need not be the program's doing; free space there and run again", dir, short)
}

// filledItself tells whether what the run left in its own folder dir is
// what its file system is short of: without it, the room and the files
// free would be enough. Such a run failed for what it wrote itself (a
// program that makes files until none are left, then fails), not for a
// classmate's; it is judged, not graded again (it would fill the disk
// again at each grade).
func filledItself(dir string) bool {
	var used, files uint64
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		files++
		if info, err := d.Info(); err == nil {
			if st, ok := info.Sys().(*syscall.Stat_t); ok {
				used += uint64(st.Blocks) * 512
			}
		}
		return nil
	})
	var st unix.Statfs_t
	if unix.Statfs(dir, &st) != nil {
		return false
	}
	return st.Bavail*uint64(st.Bsize)+used >= minFreeBytes && (st.Files == 0 || st.Ffree+files >= minFreeInodes)
}

// diskShort says how dir's file system is short of room ("12 MiB
// free", "3 files free"), or "" when it is not.
func diskShort(dir string) string {
	var st unix.Statfs_t
	if unix.Statfs(dir, &st) != nil {
		return ""
	}
	free := st.Bavail * uint64(st.Bsize)
	switch {
	case free < minFreeBytes:
		return fmt.Sprintf("%d MiB free", free>>20)
	case st.Files > 0 && st.Ffree < minFreeInodes:
		return fmt.Sprintf("%d files free", st.Ffree)
	}
	return ""
}
