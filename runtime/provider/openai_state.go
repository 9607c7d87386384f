package provider

import (
	"encoding/json"
	"time"
)

var _ SessionState = (*OpenAI)(nil)

// ExportSession is the session's conversation as JSON.
func (p *OpenAI) ExportSession(sessionID string) json.RawMessage {
	p.mu.Lock()
	defer p.mu.Unlock()
	conv, ok := p.convs[sessionID]
	if !ok {
		return nil
	}
	data, err := json.Marshal(conv.messages)
	if err != nil {
		return nil
	}
	return data
}

// ImportSession puts back a conversation ExportSession produced.
func (p *OpenAI) ImportSession(sessionID string, state json.RawMessage) error {
	var messages []chatMessage
	if err := json.Unmarshal(state, &messages); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.convs[sessionID] = &openAIConversation{messages: messages, used: time.Now()}
	return nil
}
