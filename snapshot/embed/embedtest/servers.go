package embedtest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// Ollama is a fake Ollama server: POST /api/embed, and GET /api/tags
// listing the models it has with their digests.
type Ollama struct {
	*server
	modelMu sync.Mutex
	// models maps the models it has pulled (default
	// nomic-embed-text:latest) to their digests.
	models map[string]string
	tags   int
}

// NewOllama starts a fake Ollama server, closed when the test ends. Each
// model starts with a digest derived from its name.
func NewOllama(t testing.TB, models ...string) *Ollama {
	if len(models) == 0 {
		models = []string{"nomic-embed-text:latest"}
	}
	o := &Ollama{models: map[string]string{}}
	for _, m := range models {
		o.models[m] = Digest(m)
	}
	o.server = newServer(t, o.handle)
	return o
}

// Digest returns a digest in Ollama's form (64 hex digits) made from s.
func Digest(s string) string {
	h := sha256.Sum256([]byte("embedtest " + s))
	return hex.EncodeToString(h[:])
}

// SetDigest gives a model a new digest, as ollama pull does when it
// fetches new weights under the same name. Vectors do not change: tests
// look at what the clients make of the digest.
func (o *Ollama) SetDigest(model, digest string) {
	o.modelMu.Lock()
	defer o.modelMu.Unlock()
	if _, ok := o.models[model]; !ok {
		o.t.Fatalf("embedtest: SetDigest of %s, which the server does not have", model)
	}
	o.models[model] = digest
}

// ModelDigest returns a model's current digest.
func (o *Ollama) ModelDigest(model string) string {
	o.modelMu.Lock()
	defer o.modelMu.Unlock()
	return o.models[model]
}

// Lookups returns the number of GET /api/tags requests answered.
func (o *Ollama) Lookups() int {
	o.modelMu.Lock()
	defer o.modelMu.Unlock()
	return o.tags
}

func (o *Ollama) has(model string) bool {
	o.modelMu.Lock()
	defer o.modelMu.Unlock()
	_, ok := o.models[model]
	return ok
}

// ollamaEmbedRequest is the request body of Ollama's /api/embed (api.EmbedRequest).
type ollamaEmbedRequest struct {
	Model     string          `json:"model"`
	Input     json.RawMessage `json:"input"`
	Truncate  *bool           `json:"truncate"`
	KeepAlive json.RawMessage `json:"keep_alive"`
	Options   map[string]any  `json:"options"`
	// Dimensions asks models that support it for shorter vectors.
	Dimensions int `json:"dimensions"`
}

// ollamaListModel is one model of Ollama's GET /api/tags answer
// (api.ListModelResponse, filled in as the server's ListHandler does).
type ollamaListModel struct {
	Name       string             `json:"name"`
	Model      string             `json:"model"`
	ModifiedAt time.Time          `json:"modified_at"`
	Size       int64              `json:"size"`
	Digest     string             `json:"digest"`
	Details    ollamaModelDetails `json:"details"`
}

// ollamaModelDetails is api.ModelDetails.
type ollamaModelDetails struct {
	ParentModel       string   `json:"parent_model"`
	Format            string   `json:"format"`
	Family            string   `json:"family"`
	Families          []string `json:"families"`
	ParameterSize     string   `json:"parameter_size"`
	QuantizationLevel string   `json:"quantization_level"`
}

// handleTags answers GET /api/tags (api.ListResponse): every model, most
// recently modified first.
func (o *Ollama) handleTags(s *server, w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		s.problem("%s /api/tags: want GET", r.Method)
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "404 page not found"})
		return
	}
	if s.inject(w, r, `{"error":"something went wrong"}`) {
		return
	}
	o.modelMu.Lock()
	o.tags++
	models := make([]ollamaListModel, 0, len(o.models))
	modified := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for name, digest := range o.models {
		models = append(models, ollamaListModel{Name: name, Model: name, ModifiedAt: modified, Size: 274302450, Digest: digest,
			Details: ollamaModelDetails{Format: "gguf", Family: "nomic-bert", Families: []string{"nomic-bert"},
				ParameterSize: "137M", QuantizationLevel: "F16"}})
	}
	o.modelMu.Unlock()
	slices.SortFunc(models, func(a, b ollamaListModel) int { return strings.Compare(a.Name, b.Name) })
	writeJSON(w, http.StatusOK, map[string]any{"models": models})
}

func (o *Ollama) handle(s *server, w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/api/tags" {
		o.handleTags(s, w, r)
		return
	}
	if !s.checkJSONPost(r, "/api/embed") {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "404 page not found"})
		return
	}
	var req ollamaEmbedRequest
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		s.problem("/api/embed: body: %v", err)
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	// Ollama takes a string or a list of strings.
	var input []string
	if err := json.Unmarshal(req.Input, &input); err != nil {
		var one string
		if err := json.Unmarshal(req.Input, &one); err != nil {
			s.problem("/api/embed: input is neither a string nor a list of strings")
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid input type"})
			return
		}
		input = []string{one}
	}
	if s.inject(w, r, `{"error":"llama runner process has terminated"}`) {
		return
	}
	if !o.has(req.Model) {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": fmt.Sprintf("model %q not found, try pulling it first", req.Model)})
		return
	}
	if strings.HasPrefix(req.Model, "nomic-embed-text") {
		for _, in := range input {
			if !strings.HasPrefix(in, "search_document: ") && !strings.HasPrefix(in, "search_query: ") {
				s.problem("/api/embed: nomic input without a task prefix: %.60q", in)
			}
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"model":             req.Model,
		"embeddings":        s.embed(input),
		"total_duration":    1000,
		"load_duration":     100,
		"prompt_eval_count": len(input),
	})
}

// OpenAI is a fake OpenAI-compatible server: POST /v1/embeddings.
type OpenAI struct {
	*server
	key string
}

// NewOpenAI starts a fake OpenAI server that requires key as a bearer
// token, closed when the test ends.
func NewOpenAI(t testing.TB, key string) *OpenAI {
	o := &OpenAI{key: key}
	o.server = newServer(t, o.handle)
	return o
}

type openAIEmbedRequest struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
	Dimensions     int      `json:"dimensions"`
	User           string   `json:"user"`
}

func (o *OpenAI) handle(s *server, w http.ResponseWriter, r *http.Request) {
	if !s.checkJSONPost(r, "/v1/embeddings") {
		writeJSON(w, http.StatusNotFound, map[string]any{"error": map[string]string{"message": "not found", "type": "invalid_request_error"}})
		return
	}
	if got := r.Header.Get("Authorization"); got != "Bearer "+o.key {
		writeJSON(w, http.StatusUnauthorized, map[string]any{"error": map[string]string{
			"message": "Incorrect API key provided", "type": "invalid_request_error"}})
		return
	}
	var req openAIEmbedRequest
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		s.problem("/v1/embeddings: body: %v", err)
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]string{"message": err.Error()}})
		return
	}
	if req.Model == "" || len(req.Input) == 0 {
		s.problem("/v1/embeddings: model %q with %d inputs", req.Model, len(req.Input))
	}
	if req.EncodingFormat != "" && req.EncodingFormat != "float" {
		s.problem("/v1/embeddings: encoding_format %q, the client decodes floats", req.EncodingFormat)
	}
	if s.inject(w, r, `{"error":{"message":"The server had an error while processing your request.","type":"server_error"}}`) {
		return
	}
	vecs := s.embed(req.Input)
	// Real servers may answer out of order; clients must use "index".
	data := make([]map[string]any, len(vecs))
	for i, v := range vecs {
		data[len(vecs)-1-i] = map[string]any{"object": "embedding", "index": i, "embedding": v}
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"object": "list", "data": data, "model": req.Model,
		"usage": map[string]int{"prompt_tokens": len(req.Input), "total_tokens": len(req.Input)},
	})
}
