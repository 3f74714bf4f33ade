package vaultgen

import (
	"math"
	"math/rand/v2"
	"path"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// noteKind decides a note's title style, folder and frontmatter.
type noteKind uint8

const (
	kindPlain noteKind = iota
	kindPerson
	kindDaily
)

// notePlan is everything other notes need to know about a note before any
// note is written: where it lives, what it is called, and which anchors it
// offers to links.
type notePlan struct {
	title   string // also the file name without .md
	folder  string // vault-relative, "" for the root
	path    string // folder/title.md
	aliases []string
	kind    noteKind
	// frontmatter is decided in the plan because aliases exist only in
	// frontmatter, and other notes link to them.
	frontmatter bool
	size        int    // target size in bytes
	block       string // block id on the note's first paragraph, or ""
}

// plan is the shared, read-only skeleton of a vault. It is built serially
// from the seed; notes are then written in parallel, each from its own
// random stream, so the output does not depend on scheduling.
type plan struct {
	cfg     Config
	folders []string // every folder, parents before children
	notes   []notePlan
	byRank  []int32 // link popularity rank -> note index
	popular zipf
	missing []string // names of notes that are linked but never written
	rarely  zipf     // popularity of missing names: some stubs are linked often
	words   zipf     // over commonWords
	// linkP is the chance that a word slot in prose holds a link or
	// becomes a typed edge, calibrated so that the vault has about
	// cfg.LinksPerKB links per 1,000 bytes.
	linkP float64
	names map[string]bool // lower-cased titles, aliases and missing names
}

const (
	peopleFolder  = "People"
	journalFolder = "Journal"
	// bytesPerLinkSlot converts links per KB into a chance per word slot.
	// It is calibrated, not derived: with it generated vaults have
	// LinksPerKB links per 1,000 bytes, which TestStatsMatchTheBytes checks.
	bytesPerLinkSlot = 5.5
)

func newPlan(cfg Config) *plan {
	r := rand.New(rand.NewPCG(uint64(cfg.Seed), planStream))
	p := &plan{
		cfg:   cfg,
		names: make(map[string]bool, cfg.Notes*2),
		words: newZipf(len(commonWords), wordExponent),
		linkP: cfg.LinksPerKB * bytesPerLinkSlot / 1000,
	}
	p.makeFolders(r)
	p.makeNotes(r)
	p.byRank = make([]int32, cfg.Notes)
	for i, v := range r.Perm(cfg.Notes) {
		p.byRank[i] = int32(v)
	}
	p.popular = newZipf(cfg.Notes, cfg.HubExponent)
	nMissing := max(20, cfg.Notes/50)
	for range nMissing {
		p.missing = append(p.missing, p.unique(r, func() string { return p.plainTitle(r) }))
	}
	p.rarely = newZipf(nMissing, 1.0)
	return p
}

// planStream is the second PCG seed word of the plan; note i uses i, so
// the plan never shares a random sequence with a note.
const planStream = math.MaxUint64

// wordExponent shapes word frequencies in prose: below 1 so that "the" is
// about one word in thirteen, as in English, rather than one in six.
const wordExponent = 0.75

// makeFolders creates cfg.Folders folders: People and Journal, a few
// top-level areas, and subfolders up to three deep.
func (p *plan) makeFolders(r *rand.Rand) {
	n := p.cfg.Folders
	taken := map[string]bool{}
	add := func(f string) {
		taken[strings.ToLower(f)] = true
		p.folders = append(p.folders, f)
	}
	if n >= 5 {
		add(peopleFolder)
		add(journalFolder)
	}
	areas := max(1, int(math.Sqrt(float64(n))))
	for _, i := range r.Perm(len(areaNames)) {
		if len(p.folders) >= n || areas == 0 {
			break
		}
		add(areaNames[i])
		areas--
	}
	var parents []string
	for _, f := range p.folders {
		if f != peopleFolder && f != journalFolder {
			parents = append(parents, f)
		}
	}
	for tries := 0; len(p.folders) < n && tries < 100*n; tries++ {
		parent := pick(r, parents)
		name := titleWords(r, 1+r.IntN(2))
		f := parent + "/" + name
		if taken[strings.ToLower(f)] {
			continue
		}
		add(f)
		if strings.Count(f, "/") < 2 {
			parents = append(parents, f)
		}
	}
}

// makeNotes decides every note's kind, folder, title, aliases, size and
// block id.
func (p *plan) makeNotes(r *rand.Rand) {
	var general []string // folders for plain notes
	hasPeople := false
	for _, f := range p.folders {
		switch f {
		case peopleFolder:
			hasPeople = true
		case journalFolder:
		default:
			general = append(general, f)
		}
	}
	folderZipf := newZipf(len(general), 0.7)
	day := time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC)
	p.notes = make([]notePlan, p.cfg.Notes)
	for i := range p.notes {
		np := &p.notes[i]
		x := r.Float64()
		switch {
		case hasPeople && x < 0.10:
			np.kind = kindPerson
			np.folder = peopleFolder
			np.title = p.unique(r, func() string { return pick(r, firstNames) + " " + pick(r, lastNames) })
		case hasPeople && x < 0.18:
			np.kind = kindDaily
			np.folder = journalFolder
			np.title = p.unique(r, func() string { return day.Format(time.DateOnly) })
			day = day.AddDate(0, 0, 1+r.IntN(3))
		default:
			if len(general) > 0 && !chance(r, 0.01) {
				np.folder = general[folderZipf.draw(r)]
			}
			np.title = p.unique(r, func() string { return p.plainTitle(r) })
		}
		np.path = path.Join(np.folder, np.title+".md")
		np.size = max(200, logNormal(r, float64(p.cfg.MeanNoteBytes)))
		np.frontmatter = chance(r, p.cfg.FrontmatterShare)
		if np.frontmatter && np.kind != kindDaily && chance(r, 0.12) {
			p.addAliases(r, np)
		}
		if i%6 == 0 {
			np.block = "b" + strconv.FormatInt(int64(i), 36)
		}
	}
}

// addAliases gives a note one or two aliases that no other note uses as a
// title or alias: initials for people, an acronym or a new phrase for
// others.
func (p *plan) addAliases(r *rand.Rand, np *notePlan) {
	var cands []string
	words := strings.Fields(np.title)
	switch {
	case np.kind == kindPerson:
		first, _ := utf8.DecodeRuneInString(words[0])
		cands = append(cands, string(first)+". "+words[len(words)-1])
	case np.kind == kindPlain && len(words) >= 2:
		var b strings.Builder
		for _, w := range words {
			c, _ := utf8.DecodeRuneInString(w)
			b.WriteRune(unicode.ToUpper(c))
		}
		cands = append(cands, b.String())
	}
	if chance(r, 0.5) || len(cands) == 0 {
		cands = append(cands, titleWords(r, 2))
	}
	for _, a := range cands {
		k := strings.ToLower(a)
		if !p.names[k] {
			p.names[k] = true
			np.aliases = append(np.aliases, a)
		}
	}
}

// unique calls gen until it returns a name no note, alias or missing note
// has, ignoring case, as Obsidian does when it resolves links.
func (p *plan) unique(r *rand.Rand, gen func() string) string {
	for try := 0; ; try++ {
		s := gen()
		if try >= 8 {
			s += " " + strconv.Itoa(2+r.IntN(1000))
		}
		if k := strings.ToLower(s); !p.names[k] {
			p.names[k] = true
			return s
		}
	}
}

// plainTitle is one to four title-cased words, sometimes with a rare or
// accented word, sometimes joined by "of" or "and".
func (p *plan) plainTitle(r *rand.Rand) string {
	n := 1 + r.IntN(3)
	if chance(r, 0.1) {
		n = 4
	}
	t := titleWords(r, n)
	if n >= 2 && chance(r, 0.1) {
		i := strings.LastIndexByte(t, ' ')
		t = t[:i] + pick(r, []string{" of ", " and "}) + t[i+1:]
	}
	return t
}

// titleWords joins n capitalised content words (never function words).
func titleWords(r *rand.Rand, n int) string {
	const firstContentWord = 80 // commonWords before this index are function words
	var b strings.Builder
	for k := range n {
		if k > 0 {
			b.WriteByte(' ')
		}
		var w string
		switch x := r.Float64(); {
		case x < 0.05:
			w = pick(r, rareWords)
		case x < 0.08:
			w = pick(r, accentedWords)
		default:
			w = commonWords[firstContentWord+r.IntN(len(commonWords)-firstContentWord)]
		}
		b.WriteString(capitalise(w))
	}
	return b.String()
}

// capitalise upper-cases the first letter of s.
func capitalise(s string) string {
	c, size := utf8.DecodeRuneInString(s)
	if unicode.IsUpper(c) {
		return s
	}
	return string(unicode.ToUpper(c)) + s[size:]
}
