package gates

import (
	"context"
	"fmt"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/gitops-promote/gitops-promote/internal/gitlab"
)

// EnvHealth is what the statuses say about an env's apps at its current
// values: how many are reported healthy on them, and what is wrong with
// the rest (each problem names its app).
type EnvHealth struct {
	Env         string    `json:"env"`
	Apps        int       `json:"apps"`
	Healthy     int       `json:"healthy"`
	Unhealthy   int       `json:"unhealthy"`
	OtherValues int       `json:"otherValues"`
	NotReported int       `json:"notReported"`
	Walked      int       `json:"commitsRead"`
	Problems    []Problem `json:"problems,omitempty"`
	Error       string    `json:"error,omitempty"` // why health could not be read
}

// Summary is one line: "12/12 healthy" or "10/12 healthy, 1 unhealthy, 1 not reported".
func (h *EnvHealth) Summary() string {
	if h.Error != "" {
		return "unknown: " + h.Error
	}
	s := fmt.Sprintf("%d/%d healthy", h.Healthy, h.Apps)
	for _, p := range []struct {
		n    int
		what string
	}{{h.Unhealthy, "unhealthy"}, {h.OtherValues, "on other values"}, {h.NotReported, "not reported"}} {
		if p.n > 0 {
			s += fmt.Sprintf(", %d %s", p.n, p.what)
		}
	}
	return s
}

// EnvHealth reads the health of env at base: each app's latest status
// must be success on a commit with env's values at base. Errors reading
// GitLab land in the result, so one env never hides the others.
func (c *Checker) EnvHealth(ctx context.Context, env string, base plumbing.Hash, lookback int) *EnvHealth {
	h := &EnvHealth{Env: env}
	tree, err := c.Repo.TreeFS(base)
	if err != nil {
		h.Error = oneLine(err.Error())
		return h
	}
	snap, err := Snap(tree, c.Cfg, env)
	if err != nil {
		h.Error = oneLine(err.Error())
		return h
	}
	h.Apps = len(snap.Apps)
	if h.Apps == 0 {
		return h
	}
	hr, err := c.readHealth(ctx, env, base, snap.Values, 0, lookback)
	if err != nil {
		h.Error = oneLine(err.Error())
		return h
	}
	h.Walked = hr.Walked
	for _, name := range sortedApps(hr.Apps) {
		p, bad := hr.Apps[name].healthProblem(hr)
		if !bad {
			h.Healthy++
			continue
		}
		h.Problems = append(h.Problems, p)
		switch p.Kind {
		case "unhealthy":
			h.Unhealthy++
		case "other-values":
			h.OtherValues++
		default:
			h.NotReported++
		}
	}
	return h
}

// Memo wraps a StatusReader so that each commit is listed once, however
// many envs read it: a status view walks the same history per env.
type Memo struct {
	R gitlab.StatusReader

	mu      sync.Mutex
	checked map[string]error
	lists   map[string][]gitlab.CommitStatus
	errs    map[string]error
}

// CheckProject checks the project once.
func (m *Memo) CheckProject(ctx context.Context, project string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.checked == nil {
		m.checked = map[string]error{}
	}
	if err, ok := m.checked[project]; ok {
		return err
	}
	err := m.R.CheckProject(ctx, project)
	m.checked[project] = err
	return err
}

// CommitStatuses lists a commit once.
func (m *Memo) CommitStatuses(ctx context.Context, project, sha string) ([]gitlab.CommitStatus, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.lists == nil {
		m.lists, m.errs = map[string][]gitlab.CommitStatus{}, map[string]error{}
	}
	key := project + "@" + sha
	if l, ok := m.lists[key]; ok {
		return l, m.errs[key]
	}
	l, err := m.R.CommitStatuses(ctx, project, sha)
	m.lists[key], m.errs[key] = l, err
	return l, err
}
