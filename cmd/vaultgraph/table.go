package main

import (
	"io"
	"strings"

	"github.com/mattn/go-runewidth"
)

// writeTable writes rows as columns two spaces apart, each padded to the
// display width of its widest cell, so that tables of CJK text (two
// columns a character) and combining marks line up as text/tabwriter,
// which counts runes, does not. The last column is not padded.
func writeTable(w io.Writer, rows [][]string) error {
	var widths []int
	for _, row := range rows {
		for i, cell := range row {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], runewidth.StringWidth(cell))
		}
	}
	var b strings.Builder
	for _, row := range rows {
		for i, cell := range row {
			b.WriteString(cell)
			if i < len(row)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-runewidth.StringWidth(cell)+2))
			}
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}
