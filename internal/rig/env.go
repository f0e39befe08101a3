package rig

import "path/filepath"

// ToolRoots are the toolkit's folder (/usr/local/cuda for its bin/nvcc),
// as named and as the links lead, for the cells' sandbox to read.
func ToolRoots(nvcc string) []string {
	out := []string{filepath.Dir(filepath.Dir(nvcc))}
	if real, err := filepath.EvalSymlinks(nvcc); err == nil {
		out = append(out, filepath.Dir(filepath.Dir(real)))
	}
	return out
}
