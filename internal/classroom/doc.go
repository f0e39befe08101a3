// Package classroom is the class mode of the notebook page: one server
// on a GPU machine for a whole class. Students sign in (a single-use link
// the instructor hands out, or an authenticating reverse proxy), each
// works in a copy of the course of their own under the class folder, every
// run and check of their code waits in one fair queue and runs in the
// grading sandbox, Submit grades into the class gradebook, and the
// instructor has a view of the class. The page itself is serve's: each
// student has a serve.Server of their own, reached only through this
// package's sign-in.
package classroom
