package note

import "strings"

// Openers of the constructs that hide text and may span lines, with their
// closers. Obsidian comments (%%) and HTML comments may start anywhere; $$
// math opens a block only at the start of a line (see maskInline), so that
// "$$$" in prose does not swallow the rest of the note. Inline $ math stays
// within a line (maskInlineMath).
var spanClosers = []struct{ open, close string }{
	{"%%", "%%"},
	{"<!--", "-->"},
	{"$$", "$$"},
}

// maskInline blanks, in the line starting at offset start, the inline code
// spans, inline math and the comments and display math that open or close
// on it, continuing a construct left open by an earlier line.
func (st *masker) maskInline(text []byte, start int, line string) {
	i := 0
	if st.closer != "" {
		st.hid = true
		j := strings.Index(line, st.closer)
		if j < 0 {
			blank(text, start, start+len(line))
			return
		}
		i = j + len(st.closer)
		blank(text, start, start+i)
		st.closer = ""
	}
	ticks := backtickRuns(line)
	for i < len(line) {
		c := line[i]
		if c == '`' {
			i = maskCodeSpan(text, start, line, i, ticks)
			continue
		}
		if c != '%' && c != '<' && c != '$' {
			i++
			continue
		}
		next, open := st.maskSpan(text, start, line, i)
		if open {
			return
		}
		i = next
	}
}

// maskSpan handles a possible comment or math opener at i. It returns where
// to continue, and open=true when the construct runs past the line.
func (st *masker) maskSpan(text []byte, start int, line string, i int) (int, bool) {
	if line[i] == '$' && (i+1 >= len(line) || line[i+1] != '$') {
		return maskInlineMath(text, start, line, i), false
	}
	for _, sc := range spanClosers {
		if !strings.HasPrefix(line[i:], sc.open) {
			continue
		}
		body := i + len(sc.open)
		if j := strings.Index(line[body:], sc.close); j >= 0 {
			end := body + j + len(sc.close)
			blank(text, start+i, start+end)
			st.hid = true
			return end, false
		}
		if sc.open == "$$" && strings.TrimSpace(line[:i]) != "" {
			return body, false
		}
		blank(text, start+i, start+len(line))
		st.closer, st.hid = sc.close, true
		return len(line), true
	}
	return i + 1, false
}

// maskInlineMath blanks the inline math "$...$" opened by the single '$' at
// i, if it is one, and returns where to continue. The rule is Obsidian's and
// pandoc's, which keeps prices text: the opening '$' is followed by a
// non-space, the first unescaped '$' after it closes, and only if it follows
// a non-space and is not followed by a digit. So "$x #t$" is math, while
// "costs $5 and $10" and "$5 or $x$1" hold none. An escaped "\$" opens
// nothing.
func maskInlineMath(text []byte, start int, line string, i int) int {
	if escaped(line, i) || i+1 >= len(line) || isBlank(line[i+1]) {
		return i + 1
	}
	for j := i + 1; j < len(line); j++ {
		switch line[j] {
		case '\\':
			j++
		case '$':
			if isBlank(line[j-1]) || j+1 < len(line) && line[j+1] >= '0' && line[j+1] <= '9' {
				return i + 1
			}
			blank(text, start+i, start+j+1)
			return j + 1
		}
	}
	return i + 1
}

// escaped reports whether the byte at i follows an odd number of
// backslashes.
func escaped(s string, i int) bool {
	n := 0
	for i-n-1 >= 0 && s[i-n-1] == '\\' {
		n++
	}
	return n%2 == 1
}

// tickRun is a run of backticks in a line; next is the index of the next
// run of the same length, or -1.
type tickRun struct {
	pos, n, next int
}

// backtickRuns lists the backtick runs of a line and links each to the next
// run of the same length, which is where a code span opened by it closes.
func backtickRuns(line string) []tickRun {
	if strings.IndexByte(line, '`') < 0 {
		return nil
	}
	var runs []tickRun
	for i := 0; i < len(line); {
		if line[i] != '`' {
			i++
			continue
		}
		n := runLength(line, i)
		runs = append(runs, tickRun{pos: i, n: n, next: -1})
		i += n
	}
	last := make(map[int]int)
	for k := len(runs) - 1; k >= 0; k-- {
		if j, ok := last[runs[k].n]; ok {
			runs[k].next = j
		}
		last[runs[k].n] = k
	}
	return runs
}

// maskCodeSpan blanks the code span opened by the backtick run at i, if a
// run of the same length closes it on the line, and returns where to
// continue. An escaped backtick ("\`") is literal text. Code spans are
// looked for within one line: a span left open does not hide later lines.
func maskCodeSpan(text []byte, start int, line string, i int, runs []tickRun) int {
	k := findRun(runs, i)
	if k < 0 {
		return i + 1
	}
	r := runs[k]
	if r.pos > 0 && line[r.pos-1] == '\\' && r.pos == i {
		return i + 1
	}
	if r.next < 0 {
		return r.pos + r.n
	}
	end := runs[r.next].pos + runs[r.next].n
	blank(text, start+i, start+end)
	return end
}

// findRun returns the index of the run starting at or containing offset i.
func findRun(runs []tickRun, i int) int {
	lo, hi := 0, len(runs)
	for lo < hi {
		mid := (lo + hi) / 2
		if runs[mid].pos+runs[mid].n <= i {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(runs) && runs[lo].pos <= i {
		return lo
	}
	return -1
}
