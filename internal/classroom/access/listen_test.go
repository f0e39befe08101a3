package access

import (
	"errors"
	"strings"
	"testing"
)

func TestListenRefusesPlainHTTPBeyondLoopback(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.7:0", "gpu.uni.example:0"} {
		_, err := Listen(addr, "", "", "")
		var le *ListenError
		if !errors.As(err, &le) || !strings.Contains(err.Error(), "--tls-cert") {
			t.Errorf("%s: %v, want refused with what to do", addr, err)
		}
	}
	if _, err := Listen("127.0.0.1:0", "cert.pem", "", ""); err == nil || !strings.Contains(err.Error(), "both") {
		t.Errorf("a certificate without its key: %v", err)
	}
	if _, err := Listen("127.0.0.1:0", "/nonexistent/cert.pem", "/nonexistent/key.pem", ""); err == nil || !strings.Contains(err.Error(), "/nonexistent/cert.pem") {
		t.Errorf("a missing certificate: %v", err)
	}
	for _, addr := range []string{"127.0.0.1:0", "[::1]:0", "localhost:0"} {
		ln, err := Listen(addr, "", "", "")
		if err != nil {
			if strings.Contains(addr, "::1") {
				continue // no IPv6 here
			}
			t.Fatalf("%s: %v", addr, err)
		}
		ln.Close()
	}
}
