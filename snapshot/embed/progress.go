package embed

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// Meter draws a one-line progress report ("embedding 1200/5000 chunks
// (850/s, ETA 4s)") on a terminal, redrawn at most five times a second. A
// Meter with a nil writer does nothing, which is what logs, CI and
// TERM=dumb get (the caller decides; see cmd/vaultgraph's progressWriter).
//
// The rate is that of the last rateWindow, not of the whole run, so the
// ETA follows the rate when it changes (a model server slowing down, a
// batch of long notes) instead of stalling on the average.
type Meter struct {
	mu    sync.Mutex
	w     io.Writer
	label string
	unit  string
	total int
	start time.Time
	last  time.Time
	drawn bool
	// samples are (time, done) of recent updates, oldest first, covering
	// at least rateWindow once the run is that old.
	samples []sample
	now     func() time.Time
}

type sample struct {
	at   time.Time
	done int
}

// rateWindow is how far back the rate looks.
const rateWindow = 5 * time.Second

// NewMeter starts a meter counting to total units; w is nil unless the
// output is a terminal.
func NewMeter(w io.Writer, label, unit string, total int) *Meter {
	return newMeter(w, label, unit, total, time.Now)
}

func newMeter(w io.Writer, label, unit string, total int, now func() time.Time) *Meter {
	start := now()
	return &Meter{w: w, label: label, unit: unit, total: total, start: start, now: now, samples: []sample{{start, 0}}}
}

// Update reports done units.
func (m *Meter) Update(done int) {
	if m == nil || m.w == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.samples = append(m.samples, sample{now, done})
	// Keep one sample older than the window, so that the rate spans it.
	for len(m.samples) > 2 && now.Sub(m.samples[1].at) >= rateWindow {
		m.samples = m.samples[1:]
	}
	if now.Sub(m.last) < 200*time.Millisecond && done < m.total {
		return
	}
	m.last = now
	m.draw(done, now)
}

// rate is the units per second over the recent samples.
func (m *Meter) rate(done int, now time.Time) float64 {
	first := m.samples[0]
	el := now.Sub(first.at).Seconds()
	if el <= 0 {
		return 0
	}
	return float64(done-first.done) / el
}

func (m *Meter) draw(done int, now time.Time) {
	rate := m.rate(done, now)
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
