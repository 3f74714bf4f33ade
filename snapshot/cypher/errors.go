package cypher

import (
	"errors"
	"fmt"
)

// Kind says what went wrong with a query, so that callers (the CLI, the
// REST server, the MCP tool) can map it to an exit code or a status without
// parsing messages.
type Kind string

// Kinds of query errors. The parser and translator return the first four;
// package graphdb adds the others when running a query.
const (
	// KindSyntax: the text is not a query of the supported grammar.
	KindSyntax Kind = "syntax"
	// KindUnsupported: valid openCypher that the engine cannot run
	// (pattern comprehensions, CALL subqueries, ...).
	KindUnsupported Kind = "unsupported"
	// KindReadOnly: a clause that writes or has side effects, or a CALL of
	// a procedure that is not on the allow list (see the package
	// documentation).
	KindReadOnly Kind = "readonly"
	// KindParameter: a $parameter the query uses was not given, or has a
	// value that cannot be passed.
	KindParameter Kind = "parameter"
	// KindTimeout: the query ran past its timeout and was interrupted.
	KindTimeout Kind = "timeout"
	// KindCanceled: the caller's context was canceled.
	KindCanceled Kind = "canceled"
	// KindRuntime: the engine refused or failed the query (a type error, a
	// function that does not exist); a full buffer pool is graphdb.KindOutOfMemory.
	KindRuntime Kind = "runtime"
)

// Error is a query error. Line and Column (1-based, counted in characters)
// locate the problem in the query text when it is known, else they are 0.
// Message says what is wrong and, where the fix is known, what to do: a
// syntax error that looks like a name written without the backquotes it
// needs ends with how to write it ("...; if "mentored by" is one name,
// backquote it: [r:`mentored by`]"). Callers show Message as it is, so the
// CLI, the REST API and the MCP tool give the same advice.
type Error struct {
	Kind    Kind   `json:"kind"`
	Message string `json:"message"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s error at line %d, column %d: %s", e.Kind, e.Line, e.Column, e.Message)
	}
	return fmt.Sprintf("%s error: %s", e.Kind, e.Message)
}

// Is makes errors.Is(err, &Error{Kind: k}) match any error of kind k.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Message == "" && t.Kind == e.Kind
}

// KindOf returns the kind of err if it is or wraps an *Error, else "".
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return ""
}

func errorAt(kind Kind, p Pos, format string, args ...any) *Error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...), Line: p.Line, Column: p.Col}
}
