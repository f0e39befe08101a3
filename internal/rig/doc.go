// Package rig assembles where code runs, once, for each role that runs
// it: a student's machine (check, watch, the page, lessons run), an
// author's (verify), a grader (grade, the class server), a build node
// and a run node (a Slurm task of a grade, a class server's pilot). A
// rig is the machine found (nvcc, the GPUs, the compile cache), the
// toolkit that builds and judges with it, and, for the roles that run
// someone else's code, the grading sandbox and the runner of a class's
// cells. It is the shape of gh's cmdutil.Factory: every path asks the
// rig for what it runs on, and no other package calls the machine's,
// the toolkit's, the sandbox's or the cgroups' constructors (the
// layering test keeps that).
package rig
