package git

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// ErrShallow marks a history walk that reached the boundary of a shallow
// clone (GitLab CI clones 20 or 50 commits deep by default).
var ErrShallow = errors.New("history is shallow")

// LogEntry is one commit of a history walk.
type LogEntry struct {
	Hash      plumbing.Hash
	Parents   []plumbing.Hash
	Author    Signature
	When      time.Time // author time
	Committed time.Time
	Message   string
}

// FirstParentLog calls fn for from and then each first parent, newest
// first, until fn returns false, max commits were visited, or the history
// ends (nil). It may run beside tree views of the same repository.
// Reaching the boundary of a shallow clone returns ErrShallow
// naming the last commit read.
func (r *Repo) FirstParentLog(from plumbing.Hash, max int, fn func(LogEntry) bool) error {
	shallow, _ := os.ReadFile(filepath.Join(r.gitDir, "shallow"))
	isShallow := func(h plumbing.Hash) bool { return bytes.Contains(shallow, []byte(h.String())) }
	h := from
	for range max {
		r.mu.Lock() // tree views of other goroutines read the same store
		c, err := r.repo.CommitObject(h)
		r.mu.Unlock()
		if err != nil {
			if isShallow(h) || (h != from && errors.Is(err, plumbing.ErrObjectNotFound)) {
				return fmt.Errorf("commit %s is not in this clone: %w", h.String()[:12], ErrShallow)
			}
			return fmt.Errorf("reading commit %s: %w", h, err)
		}
		e := LogEntry{Hash: c.Hash, Parents: c.ParentHashes, Author: Signature{Name: c.Author.Name, Email: c.Author.Email},
			When: c.Author.When, Committed: c.Committer.When, Message: c.Message}
		if !fn(e) || len(c.ParentHashes) == 0 {
			return nil
		}
		if isShallow(c.Hash) {
			return fmt.Errorf("the parent of %s is not in this clone: %w", c.Hash.String()[:12], ErrShallow)
		}
		h = c.ParentHashes[0]
	}
	return nil
}
