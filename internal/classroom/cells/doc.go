// Package cells is the class server's room that runs students' cells:
// a cell's command waits its turn in the class's queue (the page told
// its place), its plain nvcc steps built first outside the queue into
// the class's shared cache, then runs in the sandbox on the GPU the
// queue gave, again on another GPU when a node's worker left; a
// student's Python cells each a run of its own the same way; a
// student's folder held to its disk and file caps between runs; and the
// class's trace of each run's phases. The class's state (who signed in,
// their copies, the gradebook, what each did last) is the class
// server's (internal/classroom), which asks this room for a lesson
// workspace's environment (Room.Env) and shares its queue and trace.
package cells
