package embed

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// Meter draws a one-line progress report ("embedding 1200/5000 chunks
// (850/s, ETA 4s)") on a terminal, redrawn at most five times a second. A
// Meter with a nil writer does nothing, which is what logs and CI get.
type Meter struct {
	mu    sync.Mutex
	w     io.Writer
	label string
	unit  string
	total int
	start time.Time
	last  time.Time
	drawn bool
}

// NewMeter starts a meter counting to total units; w is nil unless the
// output is a terminal.
func NewMeter(w io.Writer, label, unit string, total int) *Meter {
	return &Meter{w: w, label: label, unit: unit, total: total, start: time.Now()}
}

// Update reports done units.
func (m *Meter) Update(done int) {
	if m == nil || m.w == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	if now.Sub(m.last) < 200*time.Millisecond && done < m.total {
		return
	}
	m.last = now
	m.draw(done, now)
}

func (m *Meter) draw(done int, now time.Time) {
	el := now.Sub(m.start).Seconds()
	rate := 0.0
	if el > 0 {
		rate = float64(done) / el
	}
	eta := "?"
	if rate > 0 {
		eta = time.Duration(float64(m.total-done) / rate * float64(time.Second)).Round(time.Second).String()
	}
	fmt.Fprintf(m.w, "\r\033[K%s %d/%d %s (%.0f/s, ETA %s)", m.label, done, m.total, m.unit, rate, eta)
	m.drawn = true
}

// Done ends the line, if one was drawn.
func (m *Meter) Done() {
	if m == nil || m.w == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.drawn {
		fmt.Fprintln(m.w)
	}
}
