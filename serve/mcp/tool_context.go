package mcp

import (
	"context"
	"errors"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vaultgraph/vaultgraph/serve"
	"github.com/vaultgraph/vaultgraph/serve/store"
	"github.com/vaultgraph/vaultgraph/snapshot/codecontext"
)

const toolContext = "retrieve_context"

func (s *Server) contextTool() *tool {
	def := mcp.NewTool(toolContext,
		mcp.WithDescription(`Before changing code: what to read, what may change with it, which tests cover it, the notes explaining it and what they flag as dangerous (buckets must_read, may_change, must_test, knowledge, danger), each entry with why it is there. Give a question, or an anchor (code:REPO/path[#Symbol]) for the impact of changing it.`),
		readOnly("Code context"),
		mcp.WithString("question", mcp.MaxLength(4096), mcp.Description("What the change is about, in words.")),
		mcp.WithString("anchor", mcp.MaxLength(4096), mcp.Description("Instead of a question: the file or symbol to change, code:REPO/path or code:REPO/path#Symbol.")),
		mcp.WithString("repo", mcp.MaxLength(200), mcp.Description("With a question and several repositories indexed: keep the code to this one (its NAME in code:NAME/...).")),
		mcp.WithInteger("k", mcp.Min(1), mcp.Max(codecontext.MaxK), mcp.DefaultNumber(codecontext.DefaultK), mcp.Description("Most entries per bucket.")),
		mcp.WithOutputSchema[codecontext.Answer](),
	)
	return &tool{def: def, needs: func(snap *store.Snapshot) error {
		if snap.Code != nil {
			return nil
		}
		if snap.CodeErr != nil {
			return snap.CodeErr
		}
		return errors.New("the snapshot holds no code")
	}, run: s.runContext}
}

func (s *Server) runContext(ctx context.Context, snap *store.Snapshot, req mcp.CallToolRequest) (*answer, error) {
	var args serve.ContextRequest // the schema takes question, anchor, repo and k
	if err := bind(req, &args); err != nil {
		return nil, err
	}
	if (strings.TrimSpace(args.Question) == "") == (args.Anchor == "") {
		if args.Anchor != "" {
			return nil, agentErrorf("give a question or an anchor (code:REPO/path or code:REPO/path#Symbol), not both")
		}
		return nil, agentErrorf("give a question (what the change is about, in words), or an anchor (code:REPO/path or code:REPO/path#Symbol) for the impact of changing it")
	}
	// The answer goes out twice, as text and as structured content, in an
	// envelope (see answerSize): codecontext gets the room one copy has,
	// and shrink cuts further what escaping makes too large.
	args.MaxBytes = min(codecontext.DefaultMaxBytes, (s.opts.MaxResultBytes-answerSize(nil))/2)
	out, err := args.Answer(ctx, snap.Code)
	if errors.Is(err, codecontext.ErrUnknownCode) || errors.Is(err, codecontext.ErrUnknownRepo) {
		return nil, agentErrorf("%s", err.Error())
	}
	if err != nil {
		return nil, err
	}
	shrink := func(frac float64) bool {
		return out.Fit(int(float64(out.Size()) * frac))
	}
	return &answer{out: out, shrink: shrink}, nil
}
