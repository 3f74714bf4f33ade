package embed

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestMeterETAFollowsTheRate: after the rate drops, the ETA is that of the
// new rate, not of the average since the start.
func TestMeterETAFollowsTheRate(t *testing.T) {
	clock := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	now := func() time.Time { return clock }
	var buf bytes.Buffer
	m := newMeter(&buf, "embedding", "texts", 10000, now)
	// 100 texts a second for 20 s...
	done := 0
	for range 20 {
		clock = clock.Add(time.Second)
		done += 100
		m.Update(done)
	}
	if !strings.HasSuffix(buf.String(), "2000/10000 texts (100/s, ETA 1m20s)") {
		t.Fatalf("at 100/s: %q", lastLine(buf.String()))
	}
	// ...then 10 a second: the whole run's average would still say about
	// 70/s; the ETA must follow the new rate once the window has passed.
	for range 10 {
		clock = clock.Add(time.Second)
		done += 10
		m.Update(done)
	}
	if got := lastLine(buf.String()); !strings.HasSuffix(got, "2100/10000 texts (10/s, ETA 13m10s)") {
		t.Fatalf("at 10/s: %q", got)
	}
}

func lastLine(s string) string {
	i := strings.LastIndex(s, "\r\033[K")
	return s[i+len("\r\033[K"):]
}
