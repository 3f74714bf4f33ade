package note

import (
	"net/url"
	"path"
	"strings"
)

// attachmentExts are the file types Obsidian opens or embeds itself, plus
// common documents. A link to one of them is not a link to a note. Any other
// extension is taken as part of a note name ("Dr. Smith", "v1.2",
// "Node.js"), because Obsidian resolves such links to "<name>.md" too.
var attachmentExts = map[string]bool{
	"png": true, "jpg": true, "jpeg": true, "gif": true, "bmp": true, "svg": true,
	"webp": true, "avif": true, "ico": true, "tif": true, "tiff": true, "heic": true,
	"mp3": true, "wav": true, "m4a": true, "ogg": true, "flac": true, "3gp": true,
	"webm": true, "mp4": true, "mov": true, "mkv": true, "ogv": true, "avi": true,
	"pdf": true, "canvas": true, "base": true,
	"csv": true, "tsv": true, "txt": true, "json": true, "xml": true, "yaml": true, "yml": true,
	"html": true, "htm": true, "zip": true, "epub": true, "docx": true, "doc": true,
	"xlsx": true, "xls": true, "pptx": true, "ppt": true, "odt": true, "ods": true,
	"odp": true, "rtf": true, "css": true, "sqlite": true,
}

// isAttachment reports whether a link path names a file that is not a note.
func isAttachment(p string) bool {
	ext := path.Ext(p)
	if ext == "" {
		return false
	}
	return attachmentExts[strings.ToLower(ext[1:])]
}

// hasMDExt reports whether p ends in ".md", in any case.
func hasMDExt(p string) bool {
	return len(p) >= 3 && strings.EqualFold(p[len(p)-3:], ".md")
}

// parseWikilink splits the text between "[[" and "]]" into target, anchor
// and display text. note is false for links to the note itself ("[[#h]]")
// and to attachments. A trailing backslash before the pipe is the escape
// Obsidian needs for wikilinks inside tables.
func parseWikilink(inner string) (target, anchor, display string, note bool) {
	if j := strings.IndexByte(inner, '|'); j >= 0 {
		display = strings.TrimSpace(inner[j+1:])
		inner = strings.TrimSuffix(inner[:j], `\`)
	}
	if j := strings.IndexByte(inner, '#'); j >= 0 {
		anchor = strings.TrimSpace(inner[j+1:])
		inner = inner[:j]
	}
	target = strings.TrimSpace(inner)
	if hasMDExt(target) {
		target = strings.TrimSpace(target[:len(target)-3])
	} else if isAttachment(target) {
		return target, anchor, display, false
	}
	return target, anchor, display, target != ""
}

// resolveMarkdownDest turns a markdown link destination into the vault path
// Obsidian reads it as: percent escapes decoded, ".md" added when the name
// has no extension, and the path taken from the vault root ("Projects/Foo.md"
// from any folder is "Projects/Foo.md", as Obsidian writes it in its
// absolute and shortest-path modes), except that "./" and "../" apply to
// the note's folder. That path is where Obsidian creates the note when it is
// missing, so it also keys the stub. Resolution (package indexer) then looks
// the path up as it does a wikilink's: exact vault path, else the notes
// whose path ends with it, the note's own folder first. ok is false for
// URLs, anchors into the note itself, folders, attachments and paths leaving
// the vault.
func resolveMarkdownDest(dest, folder string) (target, anchor string, ok bool) {
	if dest == "" || hasScheme(dest) || strings.HasPrefix(dest, "//") {
		return "", "", false
	}
	p := dest
	if j := strings.IndexByte(p, '#'); j >= 0 {
		anchor = unescape(p[j+1:])
		p = p[:j]
	}
	p = unescape(p)
	if p == "" || strings.HasSuffix(p, "/") {
		return "", "", false
	}
	switch {
	case strings.HasPrefix(p, "/"):
		p = path.Clean(p)[1:]
	case isRelative(p):
		p = path.Clean(path.Join(folder, p))
	default:
		p = path.Clean(p)
	}
	if p == "" || p == "." || p == ".." || strings.HasPrefix(p, "../") {
		return "", "", false
	}
	if isAttachment(p) {
		return "", "", false
	}
	if !hasMDExt(p) {
		p += ".md"
	}
	return p, anchor, true
}

// isRelative reports whether a link path starts at the linking note's folder
// rather than at the vault root.
func isRelative(p string) bool {
	return p == "." || p == ".." || strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../")
}

// unescape decodes percent escapes, keeping text that is not validly escaped
// as written ("100%.md").
func unescape(s string) string {
	u, err := url.PathUnescape(s)
	if err != nil {
		return s
	}
	// "%FF" decodes to a byte that is not UTF-8; targets must stay valid.
	return strings.ToValidUTF8(u, "\uFFFD")
}

// hasScheme reports whether s starts with a URL scheme such as "https:",
// "mailto:" or "obsidian:".
func hasScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ':':
			return i > 0
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return false
}
