package classroom

import "path/filepath"

// StudentsDir is the folder of a class in dir that holds each student's
// folder (their copies and workspaces).
func StudentsDir(dir string) string { return filepath.Join(dir, "students") }
