package serve

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// TokenHeader carries the server's token in the page's requests. A
// header, not a cookie: a browser adds cookies to requests that other
// sites make, never a header.
const TokenHeader = "X-Lessons-Token"

// guard is what a request must show: the server's Host, and to run or
// change anything, the token and an Origin that is this server.
type guard struct {
	token string
	hosts map[string]bool // names beside localhost and IP addresses
	pages bool            // pages need the token too
}

func newGuard() guard {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		panic("serve: no randomness for the token: " + err.Error())
	}
	return guard{token: hex.EncodeToString(b), hosts: map[string]bool{"localhost": true}}
}

// host refuses a Host header that names another server. A page of
// another site whose name an attacker points at 127.0.0.1 (DNS rebinding)
// would send its own name: an IP address cannot be rebound, and a name
// is only taken when the server was told it.
func (g *guard) host(r *http.Request) (string, int) {
	h := r.Host
	if name, _, err := net.SplitHostPort(h); err == nil {
		h = name
	}
	h = strings.ToLower(strings.Trim(h, "[]"))
	if net.ParseIP(h) != nil || g.hosts[h] {
		return "", 0
	}
	return "serve: Host " + r.Host + " is not this server (open it by its address or localhost)", http.StatusForbidden
}

// page refuses a page without the token when pages need it.
func (g *guard) page(r *http.Request) (string, int) {
	if !g.pages || g.tokenOK(r.URL.Query().Get("token")) {
		return "", 0
	}
	return "serve: open the address lessons serve printed, with its ?token=", http.StatusForbidden
}

// write refuses a request that runs or changes something without the
// token, or from a page of another origin.
func (g *guard) write(r *http.Request) (string, int) {
	if !g.tokenOK(r.Header.Get(TokenHeader)) {
		return "serve: this request needs the server's token (in " + TokenHeader + ")", http.StatusForbidden
	}
	o := r.Header.Get("Origin")
	u, err := url.Parse(o)
	if o == "" || err != nil || u.Host != r.Host || (u.Scheme != "http" && u.Scheme != "https") {
		return "serve: Origin " + o + " is not this server", http.StatusForbidden
	}
	return "", 0
}

// read refuses a request for the notebook's data (cells, verdicts)
// without the token; EventSource cannot send headers, so it may come as
// ?token=.
func (g *guard) read(r *http.Request) (string, int) {
	t := r.Header.Get(TokenHeader)
	if t == "" {
		t = r.URL.Query().Get("token")
	}
	if !g.tokenOK(t) {
		return "serve: this request needs the server's token", http.StatusForbidden
	}
	return "", 0
}

func (g *guard) tokenOK(t string) bool {
	return t != "" && subtle.ConstantTimeCompare([]byte(t), []byte(g.token)) == 1
}
