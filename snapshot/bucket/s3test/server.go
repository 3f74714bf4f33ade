package s3test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Version is the versitygw release the tests are written against.
const Version = "v1.8.0"

// Install is the command that builds the server.
const Install = "go install github.com/versity/versitygw/cmd/versitygw@" + Version

// Server is a running versitygw.
type Server struct {
	// Endpoint is http://127.0.0.1:PORT.
	Endpoint string
	// Root is the directory served: every sub-folder is a bucket, every
	// file an object (tests corrupt objects there, as bit rot would).
	Root           string
	access, secret string
	proc           *os.Process
	exited         chan error
	log            *lockedBuffer
}

// Binary returns the path of versitygw, or "" when it is not installed.
func Binary() string {
	if p := os.Getenv("VAULTGRAPH_VERSITYGW"); p != "" {
		return p // set: it must be there, and Start fails if it is not
	}
	if p, err := exec.LookPath("versitygw"); err == nil {
		return p
	}
	if home, err := os.UserHomeDir(); err == nil {
		p := filepath.Join(home, ".cache", "vaultgraph-ci", "bin", "versitygw")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// Start starts versitygw for the test on a free loopback port, serving a
// temporary directory, and stops it when the test ends. Without the
// binary the test is skipped, or fails under CI=true.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := Binary()
	if bin == "" {
		msg := "no S3 server to test against: build versitygw with `" + Install + "` (or set VAULTGRAPH_VERSITYGW to its path)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + "; CI must run the bucket tests")
		}
		t.Skip(msg)
	}
	root := t.TempDir()
	s := &Server{Root: root, access: "vg" + randomHex(8), secret: randomHex(20), log: &lockedBuffer{}}
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		if err = s.start(bin); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("start versitygw: %v\n%s", err, s.log.String())
	}
	t.Cleanup(func() {
		_ = s.proc.Kill()
		<-s.exited
		if t.Failed() {
			t.Logf("versitygw log:\n%s", s.log.String())
		}
	})
	return s
}

// start runs the server on a port that was free a moment ago and waits
// until it accepts connections or exits (another process took the port).
func (s *Server) start(bin string) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, "--access", s.access, "--secret", s.secret, "--port", addr, "posix", s.Root)
	cmd.Stdout, cmd.Stderr = s.log, s.log
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			return fmt.Errorf("versitygw exited: %v", err)
		default:
		}
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			s.proc, s.exited, s.Endpoint = cmd.Process, exited, "http://"+addr
			return nil
		}
		time.Sleep(20 * time.Millisecond) // the server is starting; nothing to wait on but its port
	}
	_ = cmd.Process.Kill()
	<-exited
	return errors.New("versitygw did not listen within 60s")
}

// Bucket creates a bucket (a folder of Root) and returns its name.
func (s *Server) Bucket(t testing.TB) string {
	t.Helper()
	name := "vg-" + randomHex(6)
	if err := os.Mkdir(filepath.Join(s.Root, name), 0o755); err != nil {
		t.Fatal(err)
	}
	return name
}

// Env is the environment that points the AWS SDK's default chain at the
// server, and nowhere else: no shared config or credentials files, no
// instance metadata.
func (s *Server) Env() []string {
	return []string{
		"AWS_ACCESS_KEY_ID=" + s.access,
		"AWS_SECRET_ACCESS_KEY=" + s.secret,
		"AWS_ENDPOINT_URL_S3=" + s.Endpoint,
		"AWS_REGION=us-east-1",
		"AWS_EC2_METADATA_DISABLED=true",
		"AWS_CONFIG_FILE=" + filepath.Join(s.Root, ".no-aws-config"),
		"AWS_SHARED_CREDENTIALS_FILE=" + filepath.Join(s.Root, ".no-aws-credentials"),
	}
}

// Setenv sets Env for the rest of the test (so not in parallel tests).
func (s *Server) Setenv(t testing.TB) {
	for _, kv := range s.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	t.Setenv("AWS_ENDPOINT_URL", "")
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_SESSION_TOKEN", "")
}

// Secret is the server's secret key, for tests that check it never shows.
func (s *Server) Secret() string { return s.secret }

// Context is a context for requests from a test.
func Context(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
