package git

import (
	"context"
	"errors"
	"fmt"
	"sort"

	gogit "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

// ErrNoBranch marks a branch the remote does not have: a push there
// would create a branch nobody reads (a typo in --branch), so callers
// refuse unless asked to create it.
var ErrNoBranch = errors.New("no such branch on the remote")

// Branches lists the branch names of remote, sorted. Errors never contain
// credentials.
func (r *Repo) Branches(ctx context.Context, remote string, auth transport.AuthMethod) ([]string, error) {
	rem, err := r.repo.Remote(remote)
	if err != nil {
		return nil, fmt.Errorf("remote %q: %w", remote, err)
	}
	refs, err := rem.ListContext(ctx, &gogit.ListOptions{Auth: auth})
	if err != nil {
		return nil, r.netError("listing the branches of "+remote, err, auth)
	}
	var out []string
	for _, ref := range refs {
		if ref.Name().IsBranch() {
			out = append(out, ref.Name().Short())
		}
	}
	sort.Strings(out)
	return out, nil
}

// NoBranchError says that remote has no branch, naming the branches it
// has (up to ten), wrapping ErrNoBranch.
func (r *Repo) NoBranchError(ctx context.Context, remote, branch string, auth transport.AuthMethod) error {
	have, err := r.Branches(ctx, remote, auth)
	if err != nil {
		return fmt.Errorf("%s has no branch %s: %w", remote, branch, ErrNoBranch)
	}
	list := "none"
	if len(have) > 0 {
		list = fmt.Sprint(have[:min(10, len(have))])
		list = list[1 : len(list)-1]
		if len(have) > 10 {
			list += fmt.Sprintf(" and %d more", len(have)-10)
		}
	}
	return fmt.Errorf("%s has no branch %s (it has: %s): %w", remote, branch, list, ErrNoBranch)
}
