package note

import (
	"strings"

	"github.com/vaultgraph/vaultgraph/format"
)

// linkToken is one link as written in a line of text: a wikilink, an embed
// or a markdown link. Tokens that do not point to a note (attachments, URLs,
// links to the note itself) are kept too, with note false, because their
// text must still not be read as tags or as other links.
type linkToken struct {
	start, end int // byte span in the scanned text, brackets included
	embed      bool
	kind       string // format.KindWikilink or format.KindMarkdown
	target     string
	anchor     string
	display    string
	note       bool
}

// scanLinks finds the links of one line of (masked) text. folder is the
// vault folder of the note, against which relative markdown links resolve.
func scanLinks(s, folder string, br brackets) []linkToken {
	var tokens []linkToken
	closer := nextCloser{s: s}
	for i := 0; i < len(s); {
		c := s[i]
		if c != '[' && c != '!' {
			i++
			continue
		}
		open, embed := i, false
		if c == '!' {
			if i+1 >= len(s) || s[i+1] != '[' {
				i++
				continue
			}
			open, embed = i+1, true
		}
		if open > 0 && s[open-1] == '\\' {
			i = open + 1
			continue
		}
		if strings.HasPrefix(s[open:], "[[") {
			// In "^[[[Note]]]" (a footnote holding a link) the link is
			// the last two brackets of the run.
			if run := runLength(s, open); run > 2 {
				i = open + run - 2
				continue
			}
			if t, next, ok := wikilinkAt(s, i, open, embed, &closer); ok {
				tokens = append(tokens, t)
				i = next
				continue
			} else if next > i {
				i = next
				continue
			}
		}
		if t, ok := markdownLinkAt(s, i, open, embed, folder, br); ok {
			tokens = append(tokens, t)
			i = t.end
			continue
		}
		i = open + 1
	}
	return tokens
}

// nextCloser finds the next "]]" at or after an offset. Offsets only grow
// during a scan, so the last answer is reused until it is passed, and a
// failed search ends all searches: the scan stays linear.
type nextCloser struct {
	s     string
	at    int
	found bool
	done  bool
}

func (c *nextCloser) after(off int) int {
	if c.done {
		return -1
	}
	if c.found && c.at >= off {
		return c.at
	}
	j := strings.Index(c.s[off:], "]]")
	if j < 0 {
		c.done = true
		return -1
	}
	c.at, c.found = off+j, true
	return c.at
}

// wikilinkAt reads "[[...]]" whose first bracket is at open (i is open-1
// for an embed). When the text between holds another "[[", the innermost
// link wins and the scan resumes there (next > i, ok false).
func wikilinkAt(s string, i, open int, embed bool, closer *nextCloser) (linkToken, int, bool) {
	end := closer.after(open + 2)
	if end < 0 {
		return linkToken{}, i, false
	}
	inner := s[open+2 : end]
	if j := strings.LastIndex(inner, "[["); j >= 0 {
		next := open + 2 + j
		if s[next-1] == '!' {
			next--
		}
		return linkToken{}, next, false
	}
	t := linkToken{start: i, end: end + 2, embed: embed, kind: format.KindWikilink}
	t.target, t.anchor, t.display, t.note = parseWikilink(inner)
	return t, end + 2, true
}

// markdownLinkAt reads "[text](destination "title")" whose '[' is at open.
// What stands between the parentheses must be a CommonMark destination and
// optional title; "[n](My Note.md)", whose destination holds a space, is no
// link, in Obsidian as in CommonMark.
func markdownLinkAt(s string, i, open int, embed bool, folder string, br brackets) (linkToken, bool) {
	closeText := br.closeOf(s, open)
	if closeText < 0 || closeText+1 >= len(s) || s[closeText+1] != '(' {
		return linkToken{}, false
	}
	closeDest := br.closeOf(s, closeText+1)
	if closeDest < 0 {
		return linkToken{}, false
	}
	dest, ok := destination(s[closeText+2 : closeDest])
	if !ok {
		return linkToken{}, false
	}
	t := linkToken{start: i, end: closeDest + 1, embed: embed, kind: format.KindMarkdown}
	t.display = strings.TrimSpace(s[open+1 : closeText])
	t.target, t.anchor, t.note = resolveMarkdownDest(dest, folder)
	return t, true
}

// destination reads the text between a markdown link's parentheses as
// CommonMark does: a destination, either "<...>" (which may hold spaces) or
// a run of characters without spaces or control characters, then optionally
// a title in double quotes, single quotes or parentheses, and nothing else.
// Backslash escapes of ASCII punctuation in the destination are decoded. ok
// is false when the text is not of that form, and then the brackets are no
// link.
func destination(s string) (dest string, ok bool) {
	s = strings.TrimLeft(s, " \t")
	var rest string
	if strings.HasPrefix(s, "<") {
		end := -1
		for j := 1; j < len(s) && end < 0; j++ {
			switch s[j] {
			case '\\':
				j++
			case '<':
				return "", false
			case '>':
				end = j
			}
		}
		if end < 0 {
			return "", false
		}
		dest, rest = s[1:end], s[end+1:]
		if rest != "" && !isBlank(rest[0]) {
			return "", false
		}
	} else {
		j := 0
		for j < len(s) && s[j] > ' ' && s[j] != 0x7f {
			j++
		}
		dest, rest = s[:j], s[j:]
	}
	if !isTitle(strings.Trim(rest, " \t")) {
		return "", false
	}
	return unescapePunct(dest), true
}

// isTitle reports whether s is empty or a whole link title: "...", '...' or
// (...), with the closing delimiter escaped wherever it appears inside.
func isTitle(s string) bool {
	if s == "" {
		return true
	}
	if len(s) < 2 {
		return false
	}
	closer := s[0]
	switch closer {
	case '"', '\'':
	case '(':
		closer = ')'
	default:
		return false
	}
	for j := 1; j < len(s); j++ {
		switch {
		case s[j] == '\\':
			j++
		case s[j] == closer:
			return j == len(s)-1
		case s[0] == '(' && s[j] == '(':
			return false
		}
	}
	return false
}

// unescapePunct decodes the backslash escapes of ASCII punctuation, as
// CommonMark does in link destinations ("Note\(1\).md" is "Note(1).md").
func unescapePunct(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for j := 0; j < len(s); j++ {
		if s[j] == '\\' && j+1 < len(s) && isASCIIPunct(s[j+1]) {
			j++
		}
		b.WriteByte(s[j])
	}
	return b.String()
}

func isASCIIPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}

// bodyLink is the links_to or embeds link a token stands for in prose.
func (t linkToken) bodyLink(source, heading string, line int) format.Link {
	typ := format.TypeLinksTo
	if t.embed {
		typ = format.TypeEmbeds
	}
	return t.typedLink(source, typ, format.OriginBody, 1, nil, heading, line)
}

// typedLink is the link a token stands for with the given type and origin.
func (t linkToken) typedLink(source, typ, origin string, sign int32, props []format.Property, heading string, line int) format.Link {
	return format.Link{
		Source:     source,
		Kind:       t.kind,
		Type:       typ,
		Origin:     origin,
		Target:     t.target,
		Anchor:     t.anchor,
		Display:    t.display,
		Sign:       sign,
		Properties: props,
		Heading:    heading,
		Line:       int32(line),
	}
}
