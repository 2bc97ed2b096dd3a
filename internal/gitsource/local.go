package gitsource

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/transport"
)

// ErrLocalRepo marks a file:// URL or local path as a repository URL that
// the trusted configuration's localRepos does not name. A source in a
// merge request could otherwise read any repository on the machine the
// job runs on (another project's checkout, a runner's cache), which Argo
// CD, reading registered repositories only, never would.
var ErrLocalRepo = errors.New("local repository not allowed")

// checkLocal refuses a repository URL that names this machine (file://,
// or a path, which go-git reads as file://) unless it is at or below one
// of allow's file:// URLs. A relative path depends on where the tool
// runs, so it is never allowed.
func checkLocal(repoURL string, allow []string) error {
	ep, err := transport.NewEndpoint(repoURL)
	if err != nil || ep.Protocol != "file" {
		return nil
	}
	// go-git makes a relative path absolute against the working
	// directory: look at what was written.
	p, isURL := strings.CutPrefix(repoURL, "file://")
	if !isURL {
		p = repoURL
	}
	if !strings.HasPrefix(p, "/") {
		return fmt.Errorf("%s: %w (a relative path; list file:// URLs in the target branch's .promote.yaml localRepos)", Redact(repoURL), ErrLocalRepo)
	}
	p = path.Clean(p)
	for _, a := range allow {
		root := path.Clean(strings.TrimPrefix(a, "file://"))
		if p == root || strings.HasPrefix(p, strings.TrimSuffix(root, "/")+"/") {
			return nil
		}
	}
	return fmt.Errorf("%s: %w (list it in the target branch's .promote.yaml localRepos)", Redact(repoURL), ErrLocalRepo)
}
