package vaultgen

// Vocabularies for titles, prose, tags, labels and edge types. The order of
// commonWords matters: words are drawn with Zipf weights by position, so the
// function words at the top dominate prose the way they do in English.

var commonWords = []string{
	"the", "of", "and", "to", "a", "in", "is", "that", "for", "it",
	"as", "with", "was", "on", "be", "by", "this", "are", "at", "from",
	"or", "an", "which", "not", "but", "have", "has", "can", "more", "all",
	"their", "one", "also", "we", "they", "been", "would", "when", "there", "some",
	"these", "other", "into", "than", "only", "its", "so", "how", "what", "about",
	"may", "most", "many", "such", "each", "between", "over", "after", "first", "new",
	"two", "where", "through", "both", "those", "any", "while", "must", "because", "should",
	"could", "without", "under", "still", "every", "often", "again", "never", "before", "since",
	"note", "system", "time", "team", "project", "data", "model", "process", "research", "design",
	"result", "question", "value", "structure", "network", "memory", "signal", "practice", "theory", "method",
	"review", "index", "query", "source", "document", "language", "pattern", "problem", "change", "history",
	"context", "evidence", "idea", "work", "people", "group", "level", "order", "point", "part",
	"form", "case", "number", "example", "state", "field", "area", "view", "use", "way",
	"plan", "goal", "task", "step", "draft", "version", "release", "feature", "interface", "service",
	"graph", "link", "edge", "node", "path", "search", "rank", "score", "metric", "test",
	"build", "write", "read", "find", "keep", "make", "show", "need", "follow", "share",
	"small", "large", "simple", "clear", "open", "early", "recent", "local", "shared", "common",
	"different", "important", "possible", "useful", "careful", "quiet", "slow", "fast", "stable", "gentle",
	"meeting", "decision", "summary", "detail", "reason", "answer", "sketch", "outline", "chapter", "section",
	"paper", "book", "article", "author", "reader", "editor", "library", "archive", "folder", "record",
	"company", "customer", "market", "product", "budget", "cost", "contract", "partner", "office", "report",
	"river", "harbor", "garden", "bridge", "window", "mountain", "forest", "island", "station", "lantern",
	"morning", "evening", "winter", "summer", "season", "weekend", "journey", "letter", "story", "voice",
	"engine", "motor", "circuit", "sensor", "battery", "compiler", "kernel", "cache", "thread", "socket",
	"protocol", "schema", "format", "parser", "buffer", "stream", "batch", "queue", "worker", "cluster",
	"theorem", "proof", "lemma", "matrix", "vector", "tensor", "sample", "estimate", "variance", "bias",
	"habit", "routine", "focus", "energy", "attention", "patience", "lesson", "mistake", "insight", "rhythm",
	"light", "water", "stone", "sand", "glass", "metal", "wood", "salt", "iron", "copper",
	"north", "south", "east", "west", "center", "border", "corner", "surface", "layer", "margin",
	"begin", "finish", "compare", "explain", "describe", "connect", "collect", "measure", "improve", "adapt",
	"quickly", "rarely", "mostly", "nearly", "simply", "clearly", "slowly", "together", "already", "perhaps",
}

// rareWords are real but uncommon words: each appears in only a handful of
// notes, which gives lexical search something specific to find.
var rareWords = []string{
	"palimpsest", "syzygy", "zymurgy", "sesquipedalian", "perspicacious", "obsequious", "lugubrious",
	"defenestration", "ephemeral", "serendipity", "petrichor", "halcyon", "mellifluous", "ineffable",
	"susurrus", "vellichor", "apricity", "crepuscular", "limerence", "numinous", "anfractuous",
	"borborygmus", "cacophony", "diaphanous", "effulgent", "fecund", "gossamer", "hegemony",
	"iconoclast", "juxtapose", "kakistocracy", "lachrymose", "maelstrom", "nadir", "obfuscate",
	"panacea", "quotidian", "recalcitrant", "sycophant", "taciturn", "ubiquitous", "verisimilitude",
	"wanderlust", "xenophile", "yesteryear", "zeitgeist", "abecedarian", "bathysphere", "cynosure",
	"dirigible", "eschatology", "funambulist", "gallimaufry", "hierophant", "isthmus", "jacquard",
	"kerfuffle", "lodestar", "mendacious", "nefarious", "orrery", "pusillanimous", "quincunx",
	"rhizome", "sinecure", "tintinnabulation", "umbra", "vicissitude", "widdershins", "xylograph",
	"yarborough", "zugzwang", "apophenia", "brachistochrone", "catoptric", "dendrochronology", "eigenvalue",
	"fibonacci", "geodesic", "heliotrope", "isobar", "jeremiad", "kenning", "logarithm",
	"meridian", "nomogram", "ouroboros", "parallax", "quaternion", "rubric", "solstice",
	"tessellate", "unguent", "vermilion", "wainscot", "axolotl", "bellwether", "chiaroscuro",
}

// accentedWords put non-ASCII letters into prose, titles and file names.
var accentedWords = []string{
	"café", "naïve", "façade", "résumé", "déjà", "über", "Zürich", "Ångström", "smörgåsbord",
	"jalapeño", "piñata", "fiancée", "rôle", "Münster", "Kraków", "Øresund", "Ærø", "São",
	"crème", "brûlée", "señor", "Malmö", "Göteborg", "Ærlig", "Ísland", "Łódź",
}

// syllables build invented words that occur once or twice in a whole vault.
var syllables = []string{
	"ka", "lo", "mi", "ra", "ven", "thu", "zor", "el", "qui", "dra", "no", "sil",
	"ver", "ash", "ul", "bri", "tal", "em", "or", "ix", "pa", "quo", "zen", "yl",
}

var firstNames = []string{
	"Ada", "Alan", "Amara", "Anika", "Arjun", "Astrid", "Bea", "Bruno", "Chen", "Clara",
	"Dmitri", "Elif", "Emeka", "Eva", "Farah", "Felix", "Grace", "Hana", "Hugo", "Ines",
	"Ivan", "Jonas", "José", "Kai", "Keiko", "Lars", "Leila", "Luca", "Maya", "Mira",
	"Nadia", "Niko", "Noor", "Olga", "Omar", "Paula", "Priya", "Rafael", "Rosa", "Sami",
	"Sara", "Søren", "Tariq", "Tess", "Theo", "Uma", "Vera", "Wen", "Yara", "Zoë",
	"Björn", "Chiara", "Dario", "Émile", "Fatima", "Gustav", "Hiro", "Ilse", "Jun", "Łukasz",
}

var lastNames = []string{
	"Abara", "Bauer", "Castillo", "Dahl", "Eriksen", "Ferreira", "Gómez", "Haddad", "Ito", "Jansen",
	"Kowalski", "Lindqvist", "Moreau", "Nakamura", "Okafor", "Petrov", "Quinn", "Rossi", "Sato", "Tanaka",
	"Ueda", "Varga", "Weber", "Xu", "Yilmaz", "Zhang", "Albers", "Brandt", "Costa", "Dubois",
	"Engel", "Fischer", "Gallo", "Horvat", "Iqbal", "Jovanović", "Kim", "Larsen", "Müller", "Novak",
	"Olsen", "Park", "Reyes", "Schmidt", "Thorsen", "Urquhart", "Vos", "Walsh", "Yamada", "Zieliński",
	"Achebe", "Berg", "Cruz", "Delgado", "Ekström", "Fontaine", "Greco", "Holm", "Ibsen", "Kaur",
}

// areaNames are top-level folders of a typical vault.
var areaNames = []string{
	"Projects", "Areas", "Resources", "Archive", "Research", "Reading", "Clients", "Ideas",
	"Drafts", "Reference", "Inbox", "Teams", "Products", "Papers", "Topics", "Writing",
	"Courses", "Recipes", "Travel", "Health", "Finance", "Hobbies", "Tools", "Talks",
}

var headingWords = []string{
	"Background", "Context", "Details", "Notes", "Open Questions", "References", "Summary",
	"Decisions", "Next Steps", "Ideas", "Examples", "Problems", "Results", "Method",
	"History", "Related Work", "Design", "Timeline", "People", "Sources", "Log", "Risks",
}

var tagWords = []string{
	"idea", "todo", "draft", "reading", "review", "important", "question", "reference", "inbox",
	"meeting", "person", "project", "evergreen", "seedling", "area/research", "area/ops",
	"area/design", "area/writing", "project/alpha", "project/beta", "project/gamma",
	"status/active", "status/done", "status/waiting", "log/2023", "log/2024", "topic/graph/theory",
}

var labels = []string{"Note", "Concept", "Project", "Meeting", "Paper", "Company", "Book", "Place", "Tool", "Topic"}

// secondLabels make multi-label types such as [Person, Engineer].
var secondLabels = []string{"Engineer", "Researcher", "Manager", "Draft", "Archived", "Reference"}

// edgeTypes are the typed-edge names written as inline fields. A leading
// sign is part of what the author writes: -contradicts is a negative edge.
var edgeTypes = []string{
	"depends_on", "part_of", "relates_to", "cites", "mentions", "supports", "authored",
	"works_at", "knows", "about", "uses", "follows", "blocks", "supersedes", "inspired_by",
	"-contradicts", "-blocks", "+supports", "reviewed by", "match",
}

// frontmatterLinkKeys are frontmatter keys whose values are links.
var frontmatterLinkKeys = []string{"related", "up", "parent", "project", "source"}

var statuses = []string{"active", "draft", "done", "archived", "paused", "waiting"}

var roles = []string{"lead", "engineer", "reviewer", "owner", "advisor", "author"}

var codeLanguages = []string{"python", "js", "bash", "yaml", "text", "dataview", "go", "sql"}
