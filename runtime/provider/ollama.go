package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/kaoruisaac/pedelec/runtime/wire"
)

// DefaultOllamaURL is where Ollama listens unless told otherwise.
const DefaultOllamaURL = "http://127.0.0.1:11434"

// ollamaListTimeout bounds the model listing on list_providers: a local
// Ollama answers in milliseconds, a remote one gets a little longer.
const (
	ollamaListTimeoutLocal  = 300 * time.Millisecond
	ollamaListTimeoutRemote = 2 * time.Second
)

// Ollama is the built-in agent loop (the openai provider's) with Ollama's
// defaults: base_url is Ollama's own root (http://127.0.0.1:11434; the
// loop talks to its OpenAI-compatible /v1), the key falls back on
// $OLLAMA_API_KEY (a local Ollama needs none), the models come from
// GET /api/tags, and a session needs a model: createSession without one
// (and no default_model) is refused with MODEL_REQUIRED.
type Ollama struct {
	*OpenAI
	root string
}

// NewOllama builds the ollama provider from its settings.
func NewOllama(s Settings) Provider { return newOllama(s) }

func init() {
	Register(Spec{Name: "ollama", Title: "Ollama", Rank: 70, New: NewOllama})
}

func newOllama(s Settings) *Ollama {
	root := strings.TrimRight(s.BaseURL, "/")
	if root == "" {
		root = DefaultOllamaURL
	}
	root = strings.TrimSuffix(root, "/v1") // either form works in the config
	loop := s
	loop.BaseURL = root + "/v1"
	o := &Ollama{OpenAI: newOpenAI(loop), root: root}
	o.name, o.keyVar = "ollama", "OLLAMA_API_KEY"
	if o.badSettings != "" {
		o.badSettings = strings.ReplaceAll(o.badSettings, loop.BaseURL, s.BaseURL)
	}
	return o
}

// NeedsModel says Core must refuse a session without a model: Ollama has
// no default model of its own.
func (o *Ollama) NeedsModel() bool { return true }

// Check lists the models the Ollama server has. Unreachable, or refusing
// the key, is unavailable with the reason.
func (o *Ollama) Check(ctx context.Context) wire.ProviderInfo {
	info := wire.ProviderInfo{
		Name: "ollama", Path: o.root, DefaultModel: o.settings.DefaultModel,
		Description: "built-in agent loop against Ollama (models from its /api/tags)",
	}
	if o.badSettings != "" {
		info.Reason = "ollama settings: " + o.badSettings
		return info
	}
	models, err := o.Models(ctx)
	if err != nil {
		info.Reason = err.Error()
		var le *ollamaListError
		if errors.As(err, &le) {
			info.UnavailableCode = le.code
		}
		return info
	}
	info.Available = true
	info.Models = models
	return info
}

// ollamaListError is a failed model listing the original SDK had a code
// for: createSession reports that code (wire.ProviderInfo.UnavailableCode).
type ollamaListError struct {
	code wire.Code
	msg  string
}

func (e *ollamaListError) Error() string { return e.msg }

// Models is GET {root}/api/tags: the names of the models the server has,
// sorted.
func (o *Ollama) Models(ctx context.Context) ([]string, error) {
	timeout := ollamaListTimeoutRemote
	if isLoopbackURL(o.root) {
		timeout = ollamaListTimeoutLocal
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, o.root+"/api/tags", nil)
	if err != nil {
		return nil, fmt.Errorf("bad base_url %s: %v", o.root, err)
	}
	o.authorize(req)
	resp, err := o.client.Do(req)
	if err != nil {
		return nil, &ollamaListError{wire.CodeOllamaUnavailable, fmt.Sprintf("no Ollama server at %s (%v); start it with `ollama serve`", o.root, shortNetError(err))}
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return nil, &ollamaListError{wire.CodeOllamaAuthFailed, fmt.Sprintf("the Ollama server at %s refused the credentials (HTTP %d); set api_key under [providers.ollama] or OLLAMA_API_KEY", o.root, resp.StatusCode)}
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("the Ollama server at %s answered HTTP %d to GET /api/tags: %s", o.root, resp.StatusCode, errorBodyText(body))
	}
	var tags struct {
		Models []struct {
			Name  string `json:"name"`
			Model string `json:"model"`
		} `json:"models"`
	}
	if err := json.Unmarshal(body, &tags); err != nil {
		return nil, fmt.Errorf("the server at %s is not Ollama: GET /api/tags answered %.100q", o.root, body)
	}
	names := make([]string, 0, len(tags.Models))
	for _, m := range tags.Models {
		if n := m.Name; n != "" {
			names = append(names, n)
		} else if m.Model != "" {
			names = append(names, m.Model)
		}
	}
	sort.Strings(names)
	return names, nil
}

// RunTurn runs the loop; a MODEL_NOT_FOUND says which models there are.
func (o *Ollama) RunTurn(ctx context.Context, turn *Turn, emit func(Event)) error {
	err := o.OpenAI.RunTurn(ctx, turn, emit)
	if we, ok := err.(*wire.Error); ok && we.Code == wire.CodeModelNotFound {
		if models, lerr := o.Models(ctx); lerr == nil {
			list := strings.Join(models, ", ")
			if list == "" {
				list = "none; pull one with `ollama pull <model>`"
			}
			details := map[string]any{"models": models}
			if d, ok := we.Details.(map[string]any); ok {
				for k, v := range d {
					details[k] = v
				}
			}
			return wire.Errorf(wire.CodeModelNotFound, "%s (the Ollama server has: %s)", we.Message, list).WithDetails(details)
		}
	}
	return err
}
