// Package doclinks holds no code: its test reads every markdown file of
// the repository (the README, the guide under docs/, ARCHITECTURE,
// CONTRIBUTING, CHANGELOG, BENCHMARKS, the lessons and the reviews) and
// fails on a relative link, an image or an #anchor that does not
// resolve, so the guide's links are checked wherever go test runs; it
// keeps the README a short front door and BENCHMARKS.md the current
// figures; and it holds docs/claims.md's citations of lesson lines to
// the figures they cite.
package doclinks
