package note

// brackets pairs the opening and closing brackets of one line, so that
// finding the end of a markdown link, of its destination or of a bracketed
// inline field takes constant time. Pairing all brackets of a line in one
// pass keeps the whole scan linear even on lines such as "[[[[[[...".
type brackets struct {
	square map[int]int // offset of '[' -> offset of its ']'
	round  map[int]int // offset of '(' -> offset of its ')'
}

func pairBrackets(s string) brackets {
	var b brackets
	var squares, rounds []int
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '[' && c != ']' && c != '(' && c != ')' {
			continue
		}
		if i > 0 && s[i-1] == '\\' {
			continue // an escaped bracket is literal text
		}
		switch c {
		case '[':
			squares = append(squares, i)
		case '(':
			rounds = append(rounds, i)
		case ']':
			if n := len(squares); n > 0 {
				if b.square == nil {
					b.square = make(map[int]int)
				}
				b.square[squares[n-1]] = i
				squares = squares[:n-1]
			}
		case ')':
			if n := len(rounds); n > 0 {
				if b.round == nil {
					b.round = make(map[int]int)
				}
				b.round[rounds[n-1]] = i
				rounds = rounds[:n-1]
			}
		}
	}
	return b
}

// closeOf returns the offset of the bracket closing the one at i, or -1.
func (b brackets) closeOf(s string, i int) int {
	m := b.round
	if s[i] == '[' {
		m = b.square
	}
	if c, ok := m[i]; ok {
		return c
	}
	return -1
}
