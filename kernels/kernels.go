// Package kernels holds the CUDA and C sources the tool builds itself.
package kernels

import _ "embed"

// AllocStats is the source of the allocation-statistics library that
// lessons check preloads into a student's program.
//
//go:embed allocstats.cu
var AllocStats []byte
