// Package kernels holds the CUDA and C sources the tool builds itself.
package kernels

import _ "embed"

// AllocStats is the source of the allocation-statistics library that
// lessons check preloads into a student's program.
//
//go:embed allocstats.cu
var AllocStats []byte

// Timeline is the trace's part of the library (timeline.h), which
// allocstats.cu includes: written beside it when the library is built.
//
//go:embed timeline.h
var Timeline []byte
