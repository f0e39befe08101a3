// Package layers holds no code. Its test guards the shape of the module:
// the floors of ARCHITECTURE.md, in which a package imports only
// packages of lower floors, the command layer that only cmd/lessons
// imports and that stays wiring (no os/exec, a ceiling on its size), and a
// checker library that imports nothing internal.
package layers
