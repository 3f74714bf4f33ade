package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sync"
	"time"
)

// Finishing what was read at end of input. A scripted client writes its
// requests and closes stdin (printf '%s\n' INIT INITIALIZED CALL |
// vaultgraph serve --stdio); mcp-go's StdioServer returns at end of input
// and cancels every request still running, so the call answered "the
// query was canceled". drainIO sits between the StdioServer and the
// process's stdin and stdout: it counts the requests read and the
// responses written, and holds the end of input back from the StdioServer
// until every request read has its response (or the bound passed, or ctx
// ended), as SIGTERM lets the HTTP server's requests in flight finish.

// drainGrace is added to the tool call timeout to bound the wait at end
// of input: a call past its timeout answers with a timeout error, so this
// is only waited for by a call that does not end (none should).
const drainGrace = 5 * time.Second

type drainIO struct {
	in  *bufio.Reader
	out io.Writer

	buf []byte // read from in, not yet handed to the StdioServer
	eof bool   // in ended after buf

	mu      sync.Mutex
	pending map[string]int // request ids read without a response yet
	changed chan struct{}  // closed and replaced when pending changes
	partial []byte         // a response line written in pieces
}

func newDrainIO(in io.Reader, out io.Writer) *drainIO {
	return &drainIO{in: bufio.NewReader(in), out: out, pending: map[string]int{}, changed: make(chan struct{})}
}

// reader hands in's bytes to the StdioServer, line by line, and answers
// end of input only once drain returned.
type drainReader struct {
	d     *drainIO
	drain func()
}

func (r *drainReader) Read(p []byte) (int, error) {
	d := r.d
	if len(d.buf) == 0 && !d.eof {
		line, err := d.in.ReadBytes('\n')
		switch {
		case err == io.EOF:
			d.eof = true
			if len(line) > 0 && line[len(line)-1] != '\n' {
				// A last message without its newline is still a
				// message (StdioServer drops a line cut by the end).
				line = append(line, '\n')
			}
		case err != nil && len(line) == 0:
			return 0, err
		}
		d.read(line)
		d.buf = line
	}
	if len(d.buf) > 0 {
		n := copy(p, d.buf)
		d.buf = d.buf[n:]
		return n, nil
	}
	r.drain()
	return 0, io.EOF
}

// Write passes p on to out and notes the responses it carries.
func (d *drainIO) Write(p []byte) (int, error) {
	n, err := d.out.Write(p)
	d.mu.Lock()
	defer d.mu.Unlock()
	d.partial = append(d.partial, p[:n]...)
	for {
		i := bytes.IndexByte(d.partial, '\n')
		if i < 0 {
			break
		}
		if id, isRequest, ok := messageID(d.partial[:i]); ok && !isRequest {
			if d.pending[id] > 1 {
				d.pending[id]--
			} else if d.pending[id] == 1 {
				delete(d.pending, id)
				d.signal()
			}
		}
		d.partial = d.partial[i+1:]
	}
	if len(d.partial) == 0 {
		d.partial = nil
	}
	return n, err
}

// read notes the request a line from in holds.
func (d *drainIO) read(line []byte) {
	id, isRequest, ok := messageID(line)
	if !ok || !isRequest {
		return
	}
	d.mu.Lock()
	d.pending[id]++
	d.mu.Unlock()
}

func (d *drainIO) signal() {
	close(d.changed)
	d.changed = make(chan struct{})
}

// inFlight is the number of requests read without a response yet, and a
// channel closed when that changes.
func (d *drainIO) inFlight() (int, <-chan struct{}) {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for _, c := range d.pending {
		n += c
	}
	return n, d.changed
}

// wait blocks until every request read has its response, bound has
// passed or ctx has ended, and returns the number still without one.
func (d *drainIO) wait(ctx context.Context, bound time.Duration) int {
	timer := time.NewTimer(bound)
	defer timer.Stop()
	for {
		n, changed := d.inFlight()
		if n == 0 {
			return 0
		}
		select {
		case <-changed:
		case <-timer.C:
			return n
		case <-ctx.Done():
			return n
		}
	}
}

// messageID returns the id of a JSON-RPC message, normalised (1 and 1.0
// are one id), and whether it is a request (a method and an id) rather
// than a response (an id, no method); ok is false for notifications,
// batches and what does not parse.
func messageID(line []byte) (id string, isRequest, ok bool) {
	var msg struct {
		ID     any     `json:"id"`
		Method *string `json:"method"`
	}
	if json.Unmarshal(line, &msg) != nil || msg.ID == nil {
		return "", false, false
	}
	b, err := json.Marshal(msg.ID)
	if err != nil {
		return "", false, false
	}
	return string(b), msg.Method != nil, true
}
