package main

import (
	"fmt"
	"io"
	"os"
	"unicode/utf8"
)

// textWriter escapes control characters in everything a command prints,
// so that a note name holding ESC[31m (or a title ending in a carriage
// return) shows as \x1b[31m and cannot drive the terminal. Newlines and
// tabs pass; JSON output has no control characters to escape (the
// encoder escapes them itself). Binary output (an archive on stdout) goes
// to Raw.
type textWriter struct {
	w io.Writer
}

func newTextWriter(w io.Writer) *textWriter { return &textWriter{w: w} }

// Raw returns the writer below, for bytes that are not text.
func (t *textWriter) Raw() io.Writer { return t.w }

func (t *textWriter) Write(p []byte) (int, error) {
	clean := true
	for i := 0; i < len(p); {
		r, size := utf8.DecodeRune(p[i:])
		if isControl(r) {
			clean = false
			break
		}
		i += size
	}
	if clean {
		return t.w.Write(p)
	}
	out := make([]byte, 0, len(p)+16)
	for i := 0; i < len(p); {
		r, size := utf8.DecodeRune(p[i:])
		if isControl(r) {
			out = fmt.Appendf(out, `\x%02x`, r)
		} else {
			out = append(out, p[i:i+size]...)
		}
		i += size
	}
	if _, err := t.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// isControl reports the C0 controls but newline and tab, DEL, and the C1
// controls (U+0080 to U+009F, which some terminals obey as ESC [ and
// so on).
func isControl(r rune) bool {
	return (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f)
}

// rawWriter returns the writer below a textWriter, or w itself.
func rawWriter(w io.Writer) io.Writer {
	if t, ok := w.(*textWriter); ok {
		return t.Raw()
	}
	return w
}

// stderr is where main prints errors, escaped as commands' output is.
var stderr io.Writer = newTextWriter(os.Stderr)
