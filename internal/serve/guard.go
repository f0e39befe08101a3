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

// guard is what a request must show: the server's Host and the token,
// for every request (a page, a script, a stream), and to run or change
// anything, the token in a header and an Origin that is this server.
//
// Pages need the token on loopback too, as Jupyter's do: any user of
// the machine can reach 127.0.0.1, and a page carries what runs code.
// The token travels in the URL (?token=, kept by every link of the page),
// not in a cookie: a cookie is scoped to a host, never to a port, so the
// browser would hand it to every other server on 127.0.0.1, another
// user's included.
type guard struct {
	token string
	hosts map[string]bool // names beside localhost and IP addresses
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

// any refuses a request without the token, in ?token= or the header,
// and a request that another site's page makes for a script, a style or
// a stream (the browser says so in Sec-Fetch-Site): a <script> tag of
// another site could otherwise read the lesson data a script holds.
// Following a link (a navigation) from elsewhere is fine: the link must
// carry the token, which only this server's pages and its printed URL do.
func (g *guard) any(r *http.Request) (string, int) {
	site, mode := r.Header.Get("Sec-Fetch-Site"), r.Header.Get("Sec-Fetch-Mode")
	if site != "" && site != "same-origin" && site != "none" && mode != "navigate" {
		return "serve: a page of another site (Sec-Fetch-Site: " + site + ") may not load this", http.StatusForbidden
	}
	if !g.tokenOK(requestToken(r)) {
		return "serve: open the address lessons serve printed, with its ?token=", http.StatusForbidden
	}
	return "", 0
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
	if !g.tokenOK(requestToken(r)) {
		return "serve: this request needs the server's token", http.StatusForbidden
	}
	return "", 0
}

// requestToken is the token a request carries, in the header or, where
// the browser cannot send one (a page's address, EventSource), ?token=.
func requestToken(r *http.Request) string {
	if t := r.Header.Get(TokenHeader); t != "" {
		return t
	}
	return r.URL.Query().Get("token")
}

func (g *guard) tokenOK(t string) bool {
	return t != "" && subtle.ConstantTimeCompare([]byte(t), []byte(g.token)) == 1
}
