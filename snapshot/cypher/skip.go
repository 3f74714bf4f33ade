package cypher

import "math"

// Kuzu 0.11.3 reads the rows of an ORDER BY from blocks of 256 KiB, and
// starts at row SKIP without checking that the sort produced that many: a
// SKIP past the last block indexes past the engine's list of blocks and
// ends the process (SIGSEGV). With one sort key a block holds about 11,900
// rows (22 bytes each), with two keys about 7,300, so on a small vault
// SKIP 12000 after ORDER BY crashed the server. LIMIT is safe (the reader
// stops at the last row), and so is SKIP without ORDER BY (a different
// operator).
//
// A SKIP smaller than the rows of one block never leaves the first block,
// which exists whenever the sort has a row, so the translator refuses a
// SKIP after ORDER BY at or above MaxOrderedSkip(keys): one block divided
// by a bound on the bytes of a sorted row (sortRowBytes for the row's
// index and sortKeyBytes for each key, more than the 17 bytes the widest
// key takes, 16 bytes of an INT128, UUID or INTERVAL and a null flag).
const (
	sortBlockBytes = 256 << 10
	sortRowBytes   = 8
	sortKeyBytes   = 24
)

// MaxOrderedSkip returns the largest SKIP the translator passes after an
// ORDER BY with the given number of sort keys: 8,191 for one key, 4,680
// for two.
func MaxOrderedSkip(keys int) int64 {
	if keys < 1 {
		keys = 1
	}
	return int64(sortBlockBytes/(sortRowBytes+sortKeyBytes*keys)) - 1
}

// checkOrderedSkip checks the SKIP of a projection with ORDER BY: a whole
// number the translator can work out (a literal, a parameter, or
// arithmetic on them) up to MaxOrderedSkip. A larger one in the final
// RETURN of a query of one part is taken off the query for the caller to
// drop (a LIMIT is raised by it); anywhere else it is refused.
func (t *translator) checkOrderedSkip(out *Projection, p Pos) {
	n, ok := constInt(out.Skip)
	if !ok {
		t.fail(KindUnsupported, p, "SKIP after ORDER BY must be a whole number, a parameter holding one, or arithmetic on them")
	}
	keys := len(out.Order)
	max := MaxOrderedSkip(keys)
	if n <= max {
		return
	}
	if t.skipInCaller {
		if out.Limit == nil {
			t.skipRows, out.Skip = n, nil
			return
		}
		if l, ok := constInt(out.Limit); ok && l >= 0 {
			t.skipRows, out.Skip = n, nil
			out.Limit = intLit(saturatingAdd(l, n))
			return
		}
	}
	t.fail(KindUnsupported, p, "SKIP %d after ORDER BY with %d sort key(s) is more than %d, the most the engine can skip safely before the final RETURN; page by the sort key instead (WHERE n.title > $last ORDER BY n.title LIMIT ...)", n, keys, max)
}

// saturatingAdd is a+b for a, b >= 0, or math.MaxInt64 when that is
// larger.
func saturatingAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// constInt evaluates e if it is an integer literal (or a float one with an
// integral value) or +, -, *, / or % of them, without overflow.
func constInt(e Expr) (int64, bool) {
	switch e := e.(type) {
	case *Literal:
		switch e.Kind {
		case LitInt:
			return e.Int, true
		case LitFloat:
			if e.Float == math.Trunc(e.Float) && math.Abs(e.Float) < 1<<62 {
				return int64(e.Float), true
			}
		}
	case *Unary:
		x, ok := constInt(e.X)
		if !ok {
			return 0, false
		}
		switch e.Op {
		case "+":
			return x, true
		case "-":
			if x == math.MinInt64 {
				return 0, false
			}
			return -x, true
		}
	case *Binary:
		l, ok1 := constInt(e.L)
		r, ok2 := constInt(e.R)
		if !ok1 || !ok2 {
			return 0, false
		}
		const lim = 1 << 62
		if l > lim || l < -lim || r > lim || r < -lim {
			return 0, false
		}
		switch e.Op {
		case "+":
			return l + r, true
		case "-":
			return l - r, true
		case "*":
			if l != 0 && (r > lim/abs64(l) || r < -lim/abs64(l)) {
				return 0, false
			}
			return l * r, true
		case "/":
			if r == 0 {
				return 0, false
			}
			return l / r, true
		case "%":
			if r == 0 {
				return 0, false
			}
			return l % r, true
		}
	}
	return 0, false
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
