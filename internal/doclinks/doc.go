// Package doclinks holds no code: its test reads every markdown file of
// the repository (the README, the guide under docs/, ARCHITECTURE,
// CONTRIBUTING, CHANGELOG, BENCHMARKS, the lessons and the reviews) and
// fails on a relative link, an image or an #anchor that does not
// resolve, so the guide's links are checked wherever go test runs; and
// it keeps the README a short front door and BENCHMARKS.md the current
// figures.
package doclinks
