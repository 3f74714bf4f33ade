package embed

import "strings"

// prefixes are the task instructions a model was trained with, prepended to
// every text it embeds. Using the wrong ones (or none) costs retrieval
// quality; changing them changes the vectors, so they are part of the
// fingerprint.
type prefixes struct {
	document, query string
}

// modelPrefixes maps a model family (the model name without tag, lower
// case, matched by prefix) to its prefixes. Families not listed get none.
var modelPrefixes = []struct {
	family string
	p      prefixes
}{
	// nomic-embed-text v1, v1.5 and v2-moe: https://huggingface.co/nomic-ai/nomic-embed-text-v1.5
	{"nomic-embed-text", prefixes{"search_document: ", "search_query: "}},
	{"nomic-ai/nomic-embed-text", prefixes{"search_document: ", "search_query: "}},
	// mxbai-embed-large and snowflake-arctic-embed (v1) prefix queries only.
	{"mxbai-embed-large", prefixes{"", "Represent this sentence for searching relevant passages: "}},
	{"snowflake-arctic-embed", prefixes{"", "Represent this sentence for searching relevant passages: "}},
	// E5 models.
	{"multilingual-e5", prefixes{"passage: ", "query: "}},
	{"intfloat/multilingual-e5", prefixes{"passage: ", "query: "}},
	{"e5-", prefixes{"passage: ", "query: "}},
	{"intfloat/e5-", prefixes{"passage: ", "query: "}},
}

func prefixesFor(model string) prefixes {
	base := strings.ToLower(model)
	if i := strings.LastIndex(base, ":"); i > strings.LastIndex(base, "/") {
		base = base[:i]
	}
	for _, mp := range modelPrefixes {
		if strings.HasPrefix(base, mp.family) {
			return mp.p
		}
	}
	return prefixes{}
}

func (p prefixes) apply(task Task, texts []string) []string {
	pre := p.document
	if task == Query {
		pre = p.query
	}
	if pre == "" {
		return texts
	}
	out := make([]string, len(texts))
	for i, t := range texts {
		out[i] = pre + t
	}
	return out
}
