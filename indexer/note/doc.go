// Package note parses one Markdown note of an Obsidian vault on its own:
// frontmatter, labels, tags, properties, every link as written (wikilinks,
// embeds, markdown links, typed inline fields, frontmatter links) and the
// note's chunks. It knows nothing about other notes: link resolution happens
// later, in package indexer, over the whole vault.
//
// Parse never fails and never panics on any input: bad input yields
// warnings, and whatever can still be read is returned. It holds no state
// between calls and is safe for concurrent use.
//
// # How a note is read
//
// The body is first masked (code.go, inline.go): fenced code blocks, inline
// code spans, %% comments, HTML comments, $$ math and inline $ math are
// blanked in a copy of the text that keeps every offset, so nothing inside
// them is ever read as a link, tag, field or heading. Code spans and inline
// math are matched within one line; inline math follows pandoc's rule, so
// prices ("$5 and $10") stay text. Indented (four-space) code blocks are not
// masked, because nested list items are indented the same way and are far
// more common in vaults.
//
// Each remaining line is then read once (body.go): headings set the
// heading path (headings.go, setext.go), links are tokenised (links.go,
// target.go), Dataview inline fields are found (fields.go) and tags
// collected (tags.go). As in
// Dataview, a line's bracketed fields ("[key:: value]", "(key:: value)")
// are read if it has any, else the line as a whole ("key:: value"), except
// in a task ("- [ ] key:: value"), whose whole-line field Dataview gives the
// task rather than the note. A field whose value holds note links yields
// typed edges (edgeprops.go); the links inside that value yield nothing
// else, while other links of the line stay plain links. A field without a
// note link becomes a property; repeated keys, and keys also set in
// frontmatter, merge into one list as Dataview does. Keys are kept as
// written (Dataview also offers a lower-cased, dashed form).
//
// A markdown link's destination is read as CommonMark reads it: one with
// an unescaped space ("[n](My Note.md)") is no link, in Obsidian too. Its
// target is the vault path Obsidian reads: from the vault root unless it
// starts with "./" or "../" (target.go).
//
// Links to attachments are recognised by a list of known file extensions
// (target.go), not by "has an extension": "[[Dr. Smith]]", "[[v1.2]]" and
// "[[Node.js]]" are links to notes, as they are in Obsidian.
//
// Headings are ATX headings ("## Title") and setext headings, a paragraph
// underlined with === (level 1) or --- (level 2); both set the heading
// path and bound chunks alike. Whether a line of === or --- underlines a
// paragraph depends on the lines before it, so the body's block structure
// is followed first (setext.go, blocks.go) as CommonMark reads it, as far
// as that question needs: "---" after a blank line, a list item, a block
// quote, a table or the frontmatter is a thematic break, and text in list
// items and block quotes is never a setext heading (nor is "- # H" or
// "> # H" an ATX heading). A line that a comment or display math leaves
// blank ends a paragraph; an underline with a comment is no underline.
//
// Chunks (chunk.go) follow heading sections; heading lines themselves (a
// setext heading's text and underline) are left out of the text because
// the heading path is in every chunk's context.
package note
