// Package lms reads a class's submissions as a learning management
// system hands them out (a Canvas bulk download, a Moodle download, or a
// folder per student, as a zip or a folder) and arranges them into the
// folder-per-student layout that grade reads, matching each file to its
// exercise by name and by content; and it writes grades and feedback as
// those systems take them in (a Canvas gradebook import, a Moodle grade
// import, Gradescope's results.json). Archives are read with limits, so
// that no entry lands outside the folder and no zip bomb fills the disk.
package lms
