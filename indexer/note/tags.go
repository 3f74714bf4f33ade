package note

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// isTagRune reports whether r may appear in a tag. Obsidian's tag pattern
// (in its app.js; quoted in obsidianmd/obsidian-help issue #816) excludes
// only whitespace, the General Punctuation (U+2000-U+206F) and Supplemental
// Punctuation (U+2E00-U+2E7F) blocks and the ASCII punctuation
// '!"#$%&'()*+,.:;<=>?@^`{|}~[]\, so "#a→b" and "#日本語。次" are whole tags
// and '_', '-' and '/' (nested tags) belong to them. Control characters end
// a tag too.
func isTagRune(r rune) bool {
	switch {
	case r < 0x80:
		return r > ' ' && r != 0x7f && !strings.ContainsRune("!\"#$%&'()*+,.:;<=>?@^`{|}~[]\\", r)
	case r >= 0x2000 && r <= 0x206f, r >= 0x2e00 && r <= 0x2e7f:
		return false
	default:
		return !unicode.IsSpace(r) && !unicode.IsControl(r) && r != '\uFEFF'
	}
}

// validTag reports whether a tag has something besides digits and
// separators: Obsidian does not read "#1984" or "#2024/01" as tags.
func validTag(tag string) bool {
	for _, r := range tag {
		if !unicode.IsDigit(r) && r != '-' && r != '/' {
			return true
		}
	}
	return false
}

// scanTags returns the inline tags of a masked line, skipping the spans of
// links (a "#heading" in "[x](#heading)" or "[[Note#heading]]" is no tag).
// A tag starts at a '#' at the start of the line or after whitespace, '(' or
// ','; a '#' followed by a space is a heading marker, not a tag.
func scanTags(s string, links []linkToken) []string {
	var tags []string
	next := 0 // index into links of the next span to skip
	for i := strings.IndexByte(s, '#'); i >= 0 && i < len(s); {
		for next < len(links) && links[next].end <= i {
			next++
		}
		if next < len(links) && links[next].start <= i {
			i = nextHash(s, links[next].end)
			continue
		}
		j := i + 1
		if tagBoundary(s, i) {
			for j < len(s) {
				r, size := utf8.DecodeRuneInString(s[j:])
				if !isTagRune(r) {
					break
				}
				j += size
			}
			if tag := strings.TrimRight(s[i+1:j], "/"); validTag(tag) {
				tags = append(tags, tag)
			}
		}
		i = nextHash(s, j)
	}
	return tags
}

// nextHash returns the offset of the next '#' at or after i, or -1.
func nextHash(s string, i int) int {
	if i >= len(s) {
		return -1
	}
	j := strings.IndexByte(s[i:], '#')
	if j < 0 {
		return -1
	}
	return i + j
}

// tagBoundary reports whether the '#' at i may start a tag.
func tagBoundary(s string, i int) bool {
	if i == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return unicode.IsSpace(r) || r == '(' || r == ','
}

// splitTags splits a frontmatter tag string on commas and whitespace and
// strips the '#' authors often write.
func splitTags(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || unicode.IsSpace(r) }) {
		if t := strings.TrimLeft(f, "#"); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// uniqueList collects strings in order without duplicates, comparing
// without case when fold is set (tags: Obsidian treats #AI and #ai as one tag)
// and keeping the first spelling.
type uniqueList struct {
	items []string
	seen  map[string]bool
	fold  bool
}

func (u *uniqueList) add(values ...string) {
	for _, v := range values {
		if v == "" {
			continue
		}
		k := v
		if u.fold {
			k = strings.ToLower(v)
		}
		if u.seen[k] {
			continue
		}
		if u.seen == nil {
			u.seen = make(map[string]bool)
		}
		u.seen[k] = true
		u.items = append(u.items, v)
	}
}
