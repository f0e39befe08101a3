// Package access is who may reach the class server and what is kept of
// it: sign-in links, sessions and tokens (Keys), the limit on failed
// sign-ins (Limiter), the audit log, and the listener (TLS, loopback or
// a Unix socket for an authenticating proxy).
package access
