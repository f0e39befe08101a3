// Package queue is the class server's one fair queue over the GPUs' run
// slots: students served round-robin, each with a cap on runs queued and
// on GPU time in any hour, a timed exercise alone on its GPU (grade's
// gates), and the slots of GPUs that join and leave (a pilot's node).
package queue
