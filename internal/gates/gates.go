// Package gates checks a promotion against what runs upstream and when the
// target may change, before anything is written:
//
//   - sourceHealthy: every Application of the source env has a latest
//     "argocd/<app>" GitLab commit status that is success, on a commit
//     whose source-env values for that app equal the values promoted;
//   - minSoak: those apps have been healthy on those values that long;
//   - syncWindow: the target env's AppProject sync windows allow a sync now
//     (require), or only say when they will (warn);
//   - syncReady: the promotion gives the target env no new sync-readiness
//     error (manifestdiff renders the apps it changes, before and after).
//
// Argo CD posts the statuses from inside the cluster (Argo CD
// Notifications, see deploy/argocd-notifications-cm.yaml); nothing here
// reaches a cluster. A gate that cannot be evaluated (GitLab unreachable,
// a token without scope, no statuses, a broken sync window) refuses with
// the reason; it never passes silently. An override, given per gate with
// a reason, turns one refusal into a Gate-Overridden commit trailer.
//
// The package prints nothing; callers render the Report.
package gates

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/git"
	"github.com/gitops-promote/gitops-promote/internal/gitlab"
)

// ErrRefused marks a promotion a gate refused (and nobody overrode).
var ErrRefused = errors.New("refused by a promotion gate")

// StatusPrefix names the commit statuses Argo CD Notifications posts.
const StatusPrefix = "argocd/"

// History is what the gates read of the repository.
type History interface {
	TreeFS(commit plumbing.Hash) (fs.FS, error)
	FirstParentLog(from plumbing.Hash, max int, fn func(git.LogEntry) bool) error
}

// Checker evaluates the gates of .promote.yaml.
type Checker struct {
	Cfg     *config.Config
	Repo    History
	GitLab  gitlab.StatusReader // nil: GitLab is not configured
	Project string              // CI_PROJECT_ID
	// NoGitLab says why GitLab is not configured, for the refusal.
	NoGitLab string
	// Ready renders promotions for the syncReady gate; nil: NoReady says
	// why there is no renderer (manifestdiff not found), for the refusal.
	Ready   Ready
	NoReady string
	Now     func() time.Time
	Log     *slog.Logger
}

// Request is one promotion to check.
type Request struct {
	From, To string
	Only     []string
	// Base is the branch commit the target env is read at: the plan's
	// base, or the remote tip.
	Base plumbing.Hash
	// Statuses is the commit the walk for deployment statuses starts
	// from; zero means Base.
	Statuses plumbing.Hash
	// Source is the commit the source env's values are read at (the
	// plan's source revision); zero means Base.
	Source plumbing.Hash
	// Overrides maps a gate name to the reason given for overriding it.
	Overrides map[string]string
	User      string // who overrides, for the trailer
	// WindowOnly evaluates the syncWindow gate alone (a rollback: the
	// health gates judge the values promoted, not those restored).
	WindowOnly bool
	// PlanBase is the commit the plan's Files are written on (zero:
	// Base), and Files the plan's new file contents: the syncReady gate
	// renders the target env with and without them.
	PlanBase plumbing.Hash
	Files    map[string][]byte
}

// Problem is one reason a gate refuses, about one app when App is set.
type Problem struct {
	App     string `json:"app,omitempty"`
	Kind    string `json:"kind"` // not-reported, unhealthy, other-values, too-young, closed, will-not-sync, cannot-render, cannot-evaluate
	Commit  string `json:"commit,omitempty"`
	Message string `json:"message"`
}

// Override records a refusal someone overrode.
type Override struct {
	Gate   string `json:"gate"`
	User   string `json:"user"`
	Reason string `json:"reason"`
}

// Result is one gate's outcome.
type Result struct {
	Gate       string    `json:"gate"`
	Env        string    `json:"env"` // the target env
	Passed     bool      `json:"passed"`
	Warning    bool      `json:"warning,omitempty"` // syncWindow: warn, outside the window
	Summary    string    `json:"summary"`
	Problems   []Problem `json:"problems,omitempty"`
	Overridden *Override `json:"overridden,omitempty"`
}

// Report is every gate of one promotion.
type Report struct {
	From    string   `json:"from"`
	To      string   `json:"to"`
	Results []Result `json:"results"`
	// Unused lists overrides given for gates that passed or are not
	// configured: nothing was overridden.
	Unused []string `json:"unusedOverrides,omitempty"`
}

// Check evaluates req.To's gates. With none configured it returns an
// empty report at once, reading nothing.
func (c *Checker) Check(ctx context.Context, req Request) (*Report, error) {
	rep := &Report{From: req.From, To: req.To}
	g := c.Cfg.GateFor(req.To)
	if !g.Any() {
		rep.Unused = sortedKeys(req.Overrides)
		return rep, nil
	}
	tree, err := c.Repo.TreeFS(req.Base)
	if err != nil {
		return nil, err
	}
	srcTree := tree
	if !req.Source.IsZero() && req.Source != req.Base {
		if srcTree, err = c.Repo.TreeFS(req.Source); err != nil {
			return nil, err
		}
	}
	if g.SourceHealthy && !req.WindowOnly {
		rep.Results = append(rep.Results, c.health(ctx, req, srcTree, g)...)
	}
	if g.SyncWindow != "" {
		rep.Results = append(rep.Results, c.window(req, tree, g))
	}
	if g.SyncReady != "" && !req.WindowOnly {
		rep.Results = append(rep.Results, c.ready(ctx, req, g))
	}
	for i := range rep.Results {
		r := &rep.Results[i]
		reason := oneLine(req.Overrides[r.Gate])
		if !r.Passed && reason != "" {
			r.Overridden = &Override{Gate: r.Gate, User: cmpOr(oneLine(req.User), "unknown"), Reason: reason}
		}
	}
	for _, gate := range sortedKeys(req.Overrides) {
		i := slices.IndexFunc(rep.Results, func(r Result) bool { return r.Gate == gate })
		if i < 0 || rep.Results[i].Passed {
			rep.Unused = append(rep.Unused, gate)
		}
	}
	return rep, nil
}

// Err is nil when every gate passed or was overridden; otherwise it names
// each refusing gate and its problems, wrapping ErrRefused: one line per
// reason, indented under the first, and gates refusing for the same
// reasons (both health gates without GitLab) share one line.
func (r *Report) Err() error {
	var gates, reasons []string
	byReason := map[string]int{} // reason text -> index in lines
	var lines [][]string         // gate names per reason
	for _, res := range r.Results {
		if res.Passed || res.Overridden != nil {
			continue
		}
		gates = append(gates, res.Gate)
		// A sync-readiness finding is long (rule, app, object, source):
		// one line each, as manifestdiff lists them.
		limit, sep := 5, "; "
		if res.Gate == config.GateSyncReady {
			limit, sep = 10, "\n    "
		}
		var items []string
		for i, p := range res.Problems {
			if i == limit {
				items = append(items, fmt.Sprintf("and %d more", len(res.Problems)-limit))
				break
			}
			items = append(items, p.Message)
		}
		if len(items) == 0 {
			items = append(items, res.Summary)
		}
		reason := strings.Join(items, sep)
		if i, ok := byReason[reason]; ok {
			lines[i] = append(lines[i], res.Gate)
			continue
		}
		byReason[reason] = len(reasons)
		reasons = append(reasons, reason)
		lines = append(lines, []string{res.Gate})
	}
	if len(gates) == 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s -> %s refused by %s", r.From, r.To, plural(len(gates), "gate", "gates"))
	for i, reason := range reasons {
		sep := "\n  "
		if len(reasons) == 1 {
			sep = " "
		}
		fmt.Fprintf(&b, "%s%s: %s", sep, strings.Join(lines[i], " and "), reason)
	}
	return &RefusedError{Gates: gates, msg: b.String()}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// RefusedError names the gates that refused, for callers' hints.
type RefusedError struct {
	Gates []string
	msg   string
}

func (e *RefusedError) Error() string { return e.msg }
func (e *RefusedError) Unwrap() error { return ErrRefused }

// Trailers are the commit trailers recording overrides:
// "Gate-Overridden: sourceHealthy by alice: preprod dashboard is green".
func (r *Report) Trailers() []string {
	var out []string
	for _, res := range r.Results {
		if o := res.Overridden; o != nil {
			out = append(out, fmt.Sprintf("Gate-Overridden: %s by %s: %s", o.Gate, o.User, o.Reason))
		}
	}
	return out
}

// statusStart is where the walk for statuses starts.
func (r Request) statusStart() plumbing.Hash {
	if !r.Statuses.IsZero() {
		return r.Statuses
	}
	return r.Base
}

func (c *Checker) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func sortedKeys(m map[string]string) []string {
	var out []string
	for k, v := range m {
		if strings.TrimSpace(v) != "" {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// Lines says what each gate found, one line per gate, for a plan or
// apply to print (on stderr: they are progress, not the plan):
//
//	gate sourceHealthy passed: 51 of 51 preprod apps healthy on the promoted values (...)
//	gate syncWindow warning: AppProject dlt-prod: closed (...); opens Wed 2025-01-15 22:00 CET (in 5d12h) (51 apps)
//	gate minSoak overridden by alice (hotfix INC-42): backend-preprod: healthy on these values for 30m only (...)
//	gate sourceHealthy refused: ...
func (r *Report) Lines() []string {
	var out []string
	for _, res := range r.Results {
		detail := res.Summary
		if !res.Passed && len(res.Problems) > 0 {
			var msgs []string
			for _, p := range res.Problems {
				msgs = append(msgs, p.Message)
			}
			detail = strings.Join(msgs, "; ")
		}
		switch {
		case res.Overridden != nil:
			out = append(out, fmt.Sprintf("gate %s overridden by %s (%s): %s", res.Gate, res.Overridden.User, res.Overridden.Reason, detail))
		case res.Warning:
			out = append(out, fmt.Sprintf("gate %s warning: %s", res.Gate, detail))
		case res.Passed:
			out = append(out, fmt.Sprintf("gate %s passed: %s", res.Gate, detail))
		default:
			out = append(out, fmt.Sprintf("gate %s refused: %s", res.Gate, detail))
		}
	}
	for _, g := range r.Unused {
		out = append(out, fmt.Sprintf("gate %s: override not used (the gate passed or is not configured for %s)", g, r.To))
	}
	return out
}
