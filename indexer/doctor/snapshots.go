package doctor

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/vaultgraph/vaultgraph/snapshot"
)

// checkSnapshot: the newest snapshot verifies byte for byte; older ones
// pass the cheap checks (sizes), and every damaged one is named.
func (st *state) checkSnapshot(context.Context) Check {
	c := Check{Name: "snapshot"}
	if len(st.entries) == 0 {
		return fail(c, "no snapshot yet", "run vaultgraph index --vault VAULT --data "+st.cfg.Data)
	}
	newest := st.entries[len(st.entries)-1]
	m, problems, err := snapshot.Verify(newest.Dir)
	if err == nil && len(problems) == 0 {
		age := st.cfg.Now().Sub(m.Created).Round(time.Second)
		c.Status, c.Summary = OK, fmt.Sprintf("newest %s verifies (%d notes, built %s ago)", m.ID, m.Counts.Notes, age)
	} else {
		c.Status = Fail
		what := "its manifest cannot be read"
		if err != nil {
			c.Details = append(c.Details, err.Error())
		} else {
			what = fmt.Sprintf("%d files differ from its manifest", len(problems))
			for i, p := range problems {
				if i == 5 {
					c.Details = append(c.Details, fmt.Sprintf("and %d more", len(problems)-i))
					break
				}
				c.Details = append(c.Details, p.String())
			}
		}
		c.Summary = fmt.Sprintf("newest snapshot %s is damaged: %s", newest.ID, what)
		// Servers verify before they swap: they serve the newest snapshot
		// whose bytes match its manifest.
		st.good = nil
		for i := len(st.entries) - 2; i >= 0; i-- {
			if _, problems, err := snapshot.Verify(st.entries[i].Dir); err == nil && len(problems) == 0 {
				st.good, _ = snapshot.Open(st.entries[i].Dir, snapshot.OpenOptions{})
				break
			}
		}
		served := "no snapshot can be served"
		if st.good != nil {
			served = "servers keep serving " + st.good.ID
		}
		c.Fix = served + "; run vaultgraph index to publish a new snapshot from the vault (it builds on the newest good one), then vaultgraph snapshot gc"
	}
	var damaged []string
	for _, e := range st.entries[:len(st.entries)-1] {
		if _, err := snapshot.Open(e.Dir, snapshot.OpenOptions{}); err != nil {
			damaged = append(damaged, e.ID)
		}
	}
	if len(damaged) > 0 {
		c.Details = append(c.Details, fmt.Sprintf("older damaged snapshots (never served): %s", strings.Join(damaged, ", ")))
		if c.Status == OK {
			c.Status = Warn
			c.Fix = "vaultgraph snapshot gc removes old snapshots"
		}
	}
	return c
}

// checkWarnings: the newest run's warnings, grouped by kind.
func (st *state) checkWarnings(context.Context) Check {
	c := Check{Name: "warnings"}
	if st.newest == nil {
		c.Status, c.Summary = Info, "no snapshot yet"
		return c
	}
	ws := st.newest.Warnings
	if len(ws) == 0 {
		c.Status, c.Summary = OK, "the newest run reported no warnings"
		return c
	}
	type group struct {
		kind  string
		files []string
	}
	byKind := map[string]*group{}
	for _, w := range ws {
		g := byKind[w.Kind]
		if g == nil {
			g = &group{kind: w.Kind}
			byKind[w.Kind] = g
		}
		g.files = append(g.files, w.File)
	}
	groups := make([]*group, 0, len(byKind))
	for _, g := range byKind {
		groups = append(groups, g)
	}
	slices.SortFunc(groups, func(a, b *group) int {
		return cmp.Or(cmp.Compare(len(b.files), len(a.files)), cmp.Compare(a.kind, b.kind))
	})
	for _, g := range groups {
		shown := g.files
		more := ""
		if len(shown) > 3 {
			shown, more = shown[:3], fmt.Sprintf(" and %d more", len(g.files)-3)
		}
		c.Details = append(c.Details, fmt.Sprintf("%s: %d (%s%s)", g.kind, len(g.files), strings.Join(shown, ", "), more))
	}
	c.Status, c.Summary = Warn, fmt.Sprintf("the newest run reported %d warnings of %d kinds; the notes concerned were indexed as far as they could be read", len(ws), len(groups))
	c.Fix = "vaultgraph snapshot show --format json lists each with its line"
	return c
}

// checkPending: texts still without a vector, and why.
func (st *state) checkPending(context.Context) Check {
	c := Check{Name: "pending"}
	if st.newest == nil {
		c.Status, c.Summary = Info, "no snapshot yet"
		return c
	}
	v := st.newest.Vectors
	if v == nil {
		c.Status, c.Summary = Info, "the newest snapshot was built without vectors"
		return c
	}
	n := v.Chunks.Pending + v.Edges.Pending
	if n == 0 {
		c.Status, c.Summary = OK, fmt.Sprintf("every chunk and edge has a vector (%d chunks, %d edges)", v.Chunks.Items, v.Edges.Items)
		return c
	}
	reason := v.PendingReason
	if reason == "" {
		reason = "no reason recorded"
	}
	c.Status = Warn
	c.Summary = fmt.Sprintf("%d chunks and %d edges have no vector yet: %s; search finds them only by their words until then", v.Chunks.Pending, v.Edges.Pending, reason)
	c.Fix = "make the model server reachable (see the embedder check), then run vaultgraph index; watch mode retries by itself"
	return c
}
