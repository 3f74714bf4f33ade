package main

import (
	"net"
	"strings"
	"testing"
)

// TestServeAddressInUse: a port another process listens on fails with
// exit 1 and a message saying what to do, not only "address already in
// use".
func TestServeAddressInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	r := vg(t, "serve", "--data", demoData(t), "--addr", ln.Addr().String())
	if r.code != 1 || !strings.Contains(r.stderr, "address already in use") || !strings.Contains(r.stderr, "pick another --addr") {
		t.Errorf("serve on a port in use: exit %d, stderr:\n%s", r.code, r.stderr)
	}
}
