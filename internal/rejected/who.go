package rejected

import (
	"fmt"
	"io/fs"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/gitops-promote/gitops-promote/internal/git"
)

// History is what Who reads of a repository.
type History interface {
	FirstParentLog(from plumbing.Hash, max int, fn func(git.LogEntry) bool) error
	TreeFS(commit plumbing.Hash) (fs.FS, error)
}

// Who names the commit that rejected e, the newest on head's first-parent
// line whose file has e and whose parent's has not: "Alice <alice@example.com>
// in 1a2b3c4d5e6f on 2026-11-28". "" when the history read does not say.
func Who(repo History, head plumbing.Hash, e Entry, limit int) string {
	has := func(c plumbing.Hash) bool {
		tree, err := repo.TreeFS(c)
		if err != nil {
			return false
		}
		l, err := Read(tree)
		if err != nil {
			return false
		}
		_, ok := l.Find(e.Component, e.Field, e.Value)
		return ok
	}
	var who string
	_ = repo.FirstParentLog(head, limit, func(le git.LogEntry) bool {
		if !has(le.Hash) {
			return false // not rejected here: the commit after it was the one
		}
		if len(le.Parents) == 0 || !has(le.Parents[0]) {
			who = fmt.Sprintf("%s <%s> in %s on %s", le.Author.Name, le.Author.Email, le.Hash.String()[:12], le.When.UTC().Format("2006-01-02"))
			return false
		}
		return true
	})
	return who
}
