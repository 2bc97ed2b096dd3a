package git

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/go-git/go-git/v5/plumbing/transport/ssh"

	"github.com/gitops-promote/gitops-promote/internal/scrub"
)

// Push pushes commit to remote's refs/heads/<branch>, never forcing. A
// rejection because the branch moved (non-fast-forward, fetch first, stale
// info, GitLab's "incorrect old value provided", a lost ref lock) wraps
// ErrRejected: fetch, rebuild the commit and retry. An up-to-date branch
// is not an error. On success refs/remotes/<remote>/<branch> is updated as
// git does. Errors never contain credentials.
func (r *Repo) Push(ctx context.Context, remote, branch string, commit plumbing.Hash, auth transport.AuthMethod) error {
	// go-git silently skips a hash refspec whose commit is missing and
	// reports "already up to date", which would hide a lost commit.
	if _, err := r.commit(commit); err != nil {
		return fmt.Errorf("pushing to %s: %w", remote, err)
	}
	dst := plumbing.NewBranchReferenceName(branch)
	tracking := plumbing.NewRemoteReferenceName(remote, branch)
	if err := r.begin(journal{Op: "push", Locks: []string{r.refPath(tracking) + ".lock"}}); err != nil {
		return err
	}
	defer r.end()
	err := r.repo.PushContext(ctx, &gogit.PushOptions{
		RemoteName: remote,
		RefSpecs:   []config.RefSpec{config.RefSpec(commit.String() + ":" + dst.String())},
		Auth:       auth,
	})
	if err != nil && !errors.Is(err, gogit.NoErrAlreadyUpToDate) {
		return r.netError(fmt.Sprintf("pushing %s to %s %s", commit, remote, branch), err, auth)
	}
	if err := r.writeRef(tracking, nil, commit); err != nil {
		return fmt.Errorf("pushed, but updating %s failed: %w", tracking, err)
	}
	return nil
}

// Fetch fetches remote's branch into refs/remotes/<remote>/<branch> and
// returns its tip. Errors never contain credentials.
func (r *Repo) Fetch(ctx context.Context, remote, branch string, auth transport.AuthMethod) (plumbing.Hash, error) {
	tracking := plumbing.NewRemoteReferenceName(remote, branch)
	if err := r.begin(journal{Op: "fetch", Locks: []string{r.refPath(tracking) + ".lock"}}); err != nil {
		return plumbing.ZeroHash, err
	}
	defer r.end()
	spec := config.RefSpec("+" + plumbing.NewBranchReferenceName(branch).String() + ":" + tracking.String())
	err := r.repo.FetchContext(ctx, &gogit.FetchOptions{
		RemoteName: remote,
		RefSpecs:   []config.RefSpec{spec},
		Auth:       auth,
	})
	var noRef gogit.NoMatchingRefSpecError
	if errors.As(err, &noRef) {
		return plumbing.ZeroHash, fmt.Errorf("fetching %s from %s: %w", branch, remote, ErrNoBranch)
	}
	if err != nil && !errors.Is(err, gogit.NoErrAlreadyUpToDate) {
		return plumbing.ZeroHash, r.netError(fmt.Sprintf("fetching %s from %s", branch, remote), err, auth)
	}
	ref, err := r.repo.Reference(tracking, true)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("reading %s after fetch: %w", tracking, err)
	}
	return ref.Hash(), nil
}

// FetchOptional is Fetch for a branch that may not exist on the remote
// yet (a merge request branch): ok is false when it does not.
func (r *Repo) FetchOptional(ctx context.Context, remote, branch string, auth transport.AuthMethod) (tip plumbing.Hash, ok bool, err error) {
	tracking := plumbing.NewRemoteReferenceName(remote, branch)
	if err := r.begin(journal{Op: "fetch", Locks: []string{r.refPath(tracking) + ".lock"}}); err != nil {
		return plumbing.ZeroHash, false, err
	}
	defer r.end()
	spec := config.RefSpec("+" + plumbing.NewBranchReferenceName(branch).String() + ":" + tracking.String())
	err = r.repo.FetchContext(ctx, &gogit.FetchOptions{RemoteName: remote, RefSpecs: []config.RefSpec{spec}, Auth: auth})
	var noRef gogit.NoMatchingRefSpecError
	switch {
	case errors.As(err, &noRef):
		return plumbing.ZeroHash, false, nil
	case err != nil && !errors.Is(err, gogit.NoErrAlreadyUpToDate):
		return plumbing.ZeroHash, false, r.netError(fmt.Sprintf("fetching %s from %s", branch, remote), err, auth)
	}
	ref, err := r.repo.Reference(tracking, true)
	if err != nil {
		return plumbing.ZeroHash, false, fmt.Errorf("reading %s after fetch: %w", tracking, err)
	}
	return ref.Hash(), true, nil
}

// RemoteURL returns remote's first URL without any user or password, for
// messages.
func (r *Repo) RemoteURL(remote string) (string, error) {
	rem, err := r.repo.Remote(remote)
	if err != nil {
		return "", fmt.Errorf("remote %q: %w", remote, err)
	}
	urls := rem.Config().URLs
	if len(urls) == 0 {
		return "", fmt.Errorf("remote %q has no URL", remote)
	}
	return stripUserinfo(urls[0]), nil
}

// stripUserinfo drops a URL's user and password; a URL that does not
// parse (a password holding '/', '#' or a space) gets them masked without
// parsing, so the password never reaches a message.
func stripUserinfo(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil || u.Scheme == "" {
		return scrub.URL(raw)
	}
	u.User = nil
	return u.String()
}

// AuthFor picks auth for remoteURL: HTTP basic auth as user "oauth2" with
// token for http(s) (nil when token is empty), the SSH agent for ssh and
// scp-like URLs, nil for file:// and local paths.
func AuthFor(remoteURL, token string) (transport.AuthMethod, error) {
	ep, err := transport.NewEndpoint(remoteURL)
	if err != nil {
		// url.Parse quotes the whole URL in its error: mask the userinfo
		// there too, found without parsing
		var s scrub.Set
		s.AddURL(remoteURL)
		return nil, fmt.Errorf("parsing remote URL %s: %s", scrub.URL(remoteURL), s.Foreign(err.Error()))
	}
	switch ep.Protocol {
	case "http", "https":
		if token == "" {
			return nil, nil
		}
		return &http.BasicAuth{Username: "oauth2", Password: token}, nil
	case "ssh":
		user := ep.User
		if user == "" {
			user = "git"
		}
		a, err := ssh.NewSSHAgentAuth(user)
		if err != nil {
			return nil, fmt.Errorf("ssh auth for %s: %w", stripUserinfo(remoteURL), err)
		}
		return a, nil
	case "file", "git":
		return nil, nil
	default:
		return nil, fmt.Errorf("remote URL %s: unsupported protocol %q", stripUserinfo(remoteURL), ep.Protocol)
	}
}

// rejectionMarkers are the texts of refusals that mean "the branch moved
// under you": go-git's own check, git's receive-pack and GitLab.
var rejectionMarkers = []string{
	"non-fast-forward",
	"fetch first",
	"stale info",
	"incorrect old value provided",
	"failed to lock",
	"cannot lock ref",
	// git's receive-pack when another push updated the ref between its
	// advertisement and our update (the lock detail goes to side-band):
	// the compare-and-swap retry is the right answer here too.
	"failed to update ref",
}

func isRejection(err error) bool {
	if errors.Is(err, gogit.ErrForceNeeded) || errors.Is(err, gogit.ErrNonFastForwardUpdate) {
		return true
	}
	// Push checked the commit exists, so a missing object means go-git's
	// fast-forward walk hit the edge of a shallow clone without meeting
	// the remote tip: the remote has commits we do not.
	if errors.Is(err, plumbing.ErrObjectNotFound) {
		return true
	}
	msg := strings.ToLower(err.Error())
	for _, m := range rejectionMarkers {
		if strings.Contains(msg, m) {
			return true
		}
	}
	return false
}
