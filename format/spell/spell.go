// Package spell finds the name a misspelt one most likely meant: a
// request's field, a Cypher label or relationship type.
package spell

import "strings"

// Fold is the form names are compared in: lower case, without
// underscores, dashes or spaces (edge_types, edgeTypes and "edge types"
// fold alike).
func Fold(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '_', '-', ' ':
			return -1
		}
		return r
	}, strings.ToLower(s))
}

// Distance is the optimal string alignment distance of a and b
// (insertions, deletions, substitutions and swaps of neighbours count
// one), or limit+1 when it is surely larger than limit. Names longer than
// 64 runes are only told equal (0) or not (limit+1).
func Distance(a, b string, limit int) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d > limit || -d > limit || len(ra) > 64 || len(rb) > 64 {
		if a == b {
			return 0
		}
		return limit + 1
	}
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return min(d[len(ra)][len(rb)], limit+1)
}
