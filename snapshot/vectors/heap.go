package vectors

// candidate is a node and its distance to the vector being searched for.
type candidate struct {
	id   uint32
	dist float32
}

// minHeap pops the closest candidate first.
type minHeap []candidate

func (h *minHeap) push(c candidate) {
	*h = append(*h, c)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if s[p].dist <= s[i].dist {
			break
		}
		s[p], s[i] = s[i], s[p]
		i = p
	}
}

func (h *minHeap) pop() candidate {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	*h = s
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		c := l
		if r := l + 1; r < n && s[r].dist < s[l].dist {
			c = r
		}
		if s[i].dist <= s[c].dist {
			break
		}
		s[i], s[c] = s[c], s[i]
		i = c
	}
	return top
}

// maxHeap keeps the farthest candidate on top, to be evicted first.
type maxHeap []candidate

func (h *maxHeap) push(c candidate) {
	*h = append(*h, c)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if s[p].dist >= s[i].dist {
			break
		}
		s[p], s[i] = s[i], s[p]
		i = p
	}
}

func (h *maxHeap) pop() candidate {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	*h = s
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		c := l
		if r := l + 1; r < n && s[r].dist > s[l].dist {
			c = r
		}
		if s[i].dist >= s[c].dist {
			break
		}
		s[i], s[c] = s[c], s[i]
		i = c
	}
	return top
}

// drainSorted empties h into out, closest first.
func (h *maxHeap) drainSorted(out []candidate) []candidate {
	n := len(*h)
	start := len(out)
	out = append(out, make([]candidate, n)...)
	for i := n - 1; i >= 0; i-- {
		out[start+i] = h.pop()
	}
	return out
}
