package kube

import (
	"context"
	"slices"
	"sync"
)

// warnings collects what the API server says in its Warning headers (a
// deprecated API version of a rendered object, a field it will drop),
// each distinct text once, in the order first seen.
type warnings struct {
	mu   sync.Mutex
	list []string
}

// HandleWarningHeaderWithContext is client-go's rest.WarningHandlerWithContext.
// Code 299 is the only one servers send ("miscellaneous persistent
// warning"); other codes are not warnings meant for the client's user.
func (w *warnings) HandleWarningHeaderWithContext(_ context.Context, code int, _, text string) {
	if code != 299 || text == "" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !slices.Contains(w.list, text) {
		w.list = append(w.list, text)
	}
}

// Warnings are the API server's warnings so far, each once, as the server
// wrote them: they may quote a field's value, so the caller cleans them
// before showing them.
func (c *Cluster) Warnings() []string {
	c.warn.mu.Lock()
	defer c.warn.mu.Unlock()
	return slices.Clone(c.warn.list)
}
