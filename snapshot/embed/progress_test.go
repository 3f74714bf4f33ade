package embed_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/snapshot/embed"
)

func TestMeterDrawsOnlyWithAWriter(t *testing.T) {
	var buf bytes.Buffer
	m := embed.NewMeter(&buf, "embedding", "texts", 10)
	m.Update(3)
	m.Update(4) // within 200 ms of the last line: skipped
	m.Update(10)
	m.Done()
	out := buf.String()
	if !strings.HasPrefix(out, "\r") || !strings.Contains(out, "3/10 texts") || !strings.Contains(out, "10/10 texts") ||
		strings.Contains(out, "4/10") || !strings.HasSuffix(out, "\n") || !strings.Contains(out, "/s, ETA ") {
		t.Errorf("meter drew %q", out)
	}
	quiet := embed.NewMeter(nil, "embedding", "texts", 10)
	quiet.Update(5)
	quiet.Done()
	var nilMeter *embed.Meter
	nilMeter.Update(1)
	nilMeter.Done()
}
