package promote

import (
	"context"
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/gitops-promote/gitops-promote/internal/argo"
	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/gates"
	"github.com/gitops-promote/gitops-promote/internal/git"
	"github.com/gitops-promote/gitops-promote/internal/gitlab"
	"github.com/gitops-promote/gitops-promote/internal/history"
	"github.com/gitops-promote/gitops-promote/internal/rejected"
	"github.com/gitops-promote/gitops-promote/internal/versions"
)

// StatusView is every env at a glance, read from the git objects of one
// commit: per component and env the values, drift, what is pending along
// the env path, the last promotion into each env, deployment health when
// GitLab is configured, and the sync window.
type StatusView struct {
	Head       string            `json:"head"`
	Now        time.Time         `json:"now"`
	Envs       []EnvStatus       `json:"envs"`
	Components []ComponentStatus `json:"components"`
	Pending    []PendingStep     `json:"pending"`
}

// EnvStatus is one env's summary row.
type EnvStatus struct {
	Env           string           `json:"env"`
	Apps          int              `json:"apps"`
	LastPromotion *Promotion       `json:"lastPromotion,omitempty"`
	LastRollback  *Promotion       `json:"lastRollback,omitempty"` // Verb "rollback"
	Health        *gates.EnvHealth `json:"health,omitempty"`       // nil without GitLab
	Window        *gates.EnvWindow `json:"window,omitempty"`
	Drift         []Drift          `json:"drift,omitempty"`
	Errors        []string         `json:"errors,omitempty"` // what could not be read; the rest still shows
	Gate          *config.Gate     `json:"gates,omitempty"`
	apps          []argo.App
}

// Promotion is the newest commit our trailers say changed an env.
type Promotion struct {
	Commit     string    `json:"commit"`
	When       time.Time `json:"when"`
	Author     string    `json:"author"`
	Verb       string    `json:"verb"` // promote, pin or rollback
	From       string    `json:"from,omitempty"`
	FromCommit string    `json:"fromCommit,omitempty"`
	Components []string  `json:"components,omitempty"`
	// Overrides are the gates someone overrode for this promotion (its
	// Gate-Overridden trailers).
	Overrides []gates.Override `json:"gateOverrides,omitempty"`
	// RolledBackTo and Reason are a rollback's trailers.
	RolledBackTo string `json:"rolledBackTo,omitempty"`
	Reason       string `json:"reason,omitempty"`
}

// ComponentStatus is one component across envs.
type ComponentStatus struct {
	Component string           `json:"component"`
	Chart     string           `json:"chart"`
	Envs      []ComponentValue `json:"envs"`
}

// ComponentValue is a component's values in one env.
type ComponentValue struct {
	Env          string            `json:"env"`
	ChartVersion string            `json:"chartVersion,omitempty"`
	ImageTag     string            `json:"imageTag,omitempty"`
	Fields       map[string]string `json:"fields,omitempty"`  // every scalar field
	Pending      bool              `json:"pending,omitempty"` // the previous env holds other values
	Drift        bool              `json:"drift,omitempty"`   // a Helm source pins another revision
	// Rejected lists the fields holding a rejected value (promote reject).
	Rejected []string `json:"rejected,omitempty"`
	Missing  bool     `json:"missing,omitempty"`
}

// Drift is a Helm source whose targetRevision is not its env's chartVersion.
type Drift struct {
	File      string `json:"file"`
	Line      int    `json:"line"`
	Component string `json:"component"`
	Chart     string `json:"chart"`
	Revision  string `json:"revision"`
	Versions  string `json:"versions"`
}

// PendingStep is what promoting From into To would move.
type PendingStep struct {
	From    string            `json:"from"`
	To      string            `json:"to"`
	Changes []versions.Change `json:"changes"`
	Error   string            `json:"error,omitempty"`
}

// StatusOptions configures BuildStatus.
type StatusOptions struct {
	Head plumbing.Hash
	Now  time.Time
	// GitLab and Project read deployment health; nil leaves it out.
	GitLab  gitlab.StatusReader
	Project string
	// Lookback bounds the commits whose statuses are read per env
	// (default 20); History bounds the commits read for trailers (default 1000).
	Lookback, History int
}

// BuildStatus reads the view. It fails only when the head commit cannot
// be read; anything else wrong lands in the env it concerns.
func BuildStatus(ctx context.Context, repo *git.Repo, cfg *config.Config, opt StatusOptions) (*StatusView, error) {
	tree, err := repo.TreeFS(opt.Head)
	if err != nil {
		return nil, err
	}
	v := &StatusView{Head: opt.Head.String(), Now: opt.Now}
	files := map[string]*versions.File{}
	for _, env := range cfg.Environments {
		es := EnvStatus{Env: env}
		if g := cfg.GateFor(env); g.Any() {
			es.Gate = &g
		}
		vf, err := readVersions(tree, cfg, env)
		if err != nil {
			es.Errors = append(es.Errors, oneLine(err.Error()))
		} else {
			files[env] = vf
		}
		v.Envs = append(v.Envs, es)
	}
	// Apps and windows per env, and the trailer walk, are independent.
	var wg sync.WaitGroup
	for i := range v.Envs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			envDetails(tree, cfg, &v.Envs[i], files[v.Envs[i].Env], opt.Now)
		}()
	}
	var histErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		histErr = lastPromotions(repo, opt.Head, cfg, v.Envs, orDefault(opt.History, 1000))
	}()
	wg.Wait()
	if histErr != nil {
		for i := range v.Envs {
			if v.Envs[i].LastPromotion == nil {
				v.Envs[i].Errors = append(v.Envs[i].Errors, "last promotion: "+oneLine(histErr.Error()))
			}
		}
	}
	v.Components, v.Pending = componentRows(cfg, files, v.Envs)
	markRejected(tree, files, v)
	if opt.GitLab != nil {
		c := &gates.Checker{Cfg: cfg, Repo: repo, GitLab: &gates.Memo{R: opt.GitLab}, Project: opt.Project,
			Now: func() time.Time { return opt.Now }}
		for i := range v.Envs {
			v.Envs[i].Health = c.EnvHealth(ctx, v.Envs[i].Env, opt.Head, orDefault(opt.Lookback, 20))
		}
	}
	return v, nil
}

func envDetails(tree fs.FS, cfg *config.Config, es *EnvStatus, vf *versions.File, now time.Time) {
	apps, err := argo.Discover(tree, cfg, es.Env)
	if err != nil {
		es.Errors = append(es.Errors, oneLine(err.Error()))
	}
	es.apps, es.Apps = apps, len(apps)
	w := gates.Windows(tree, cfg, es.Env, apps, now)
	es.Window = &w
	if vf == nil {
		return
	}
	mfs, err := readManifests(tree, cfg, es.Env)
	if err != nil {
		es.Errors = append(es.Errors, oneLine(err.Error()))
		return
	}
	for _, m := range mfs {
		for _, s := range m.Sources {
			comp, ok := cfg.ComponentByChart(s.Chart)
			if !ok || !s.HasRevision || s.Revision.Templated {
				continue
			}
			c, _ := vf.Component(comp.Key)
			want, ok := c.Field(versions.ChartVersionKey)
			if ok && want.Value != s.Revision.Value {
				es.Drift = append(es.Drift, Drift{File: m.Path, Line: s.Revision.Line, Component: comp.Key, Chart: s.Chart,
					Revision: s.Revision.Value, Versions: want.Value})
			}
		}
	}
}

// subjectRE is compiled on first use, not at init: only status reads
// history, and every start of promote would pay for it.
var subjectRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^chore\(([^)]+)\): (promote versions from (\S+)|pin |roll back )`)
})

// lastPromotions walks the first-parent history from head for our
// commits (subject and trailers of promote apply, pin and rollback),
// newest first, until every env has a last promotion and a last rollback
// or limit commits were read.
func lastPromotions(repo *git.Repo, head plumbing.Hash, cfg *config.Config, envs []EnvStatus, limit int) error {
	missing := 2 * len(envs)
	err := repo.FirstParentLog(head, limit, func(e git.LogEntry) bool {
		subject, body, _ := strings.Cut(e.Message, "\n")
		m := subjectRE().FindStringSubmatch(subject)
		if m == nil {
			return true
		}
		rollback := m[2] == "roll back "
		for i := range envs {
			slot := &envs[i].LastPromotion
			if rollback {
				slot = &envs[i].LastRollback
			}
			if envs[i].Env != m[1] || *slot != nil {
				continue
			}
			p := &Promotion{Commit: e.Hash.String(), When: e.When.UTC(), Author: e.Author.Name, Verb: "pin"}
			switch {
			case rollback:
				p.Verb = "rollback"
			case m[3] != "":
				p.Verb, p.From = "promote", m[3]
			}
			t := history.ReadTrailers(body)
			p.FromCommit, p.Components, p.RolledBackTo, p.Reason = t.FromCommit, t.Components, t.RolledBackTo, t.Reason
			for _, o := range t.GateOverrides {
				p.Overrides = append(p.Overrides, parseOverride(o))
			}
			*slot = p
			missing--
		}
		return missing > 0
	})
	return err
}

// parseOverride reads a Gate-Overridden trailer's value, "sourceHealthy by
// alice: preprod verified by hand" (gates.Report.Trailers); a value of
// another shape is kept whole as the reason.
func parseOverride(val string) gates.Override {
	gate, rest, ok := strings.Cut(val, " by ")
	if !ok || strings.ContainsAny(gate, " :") {
		return gates.Override{Reason: val}
	}
	user, reason, _ := strings.Cut(rest, ": ")
	return gates.Override{Gate: gate, User: user, Reason: reason}
}

// String is an override for tables: "sourceHealthy by alice: reason".
func overrideText(o gates.Override) string {
	if o.Gate == "" {
		return o.Reason
	}
	return fmt.Sprintf("%s by %s: %s", o.Gate, o.User, o.Reason)
}

// componentRows lays out values per component and env, and what each
// step of the env path would move.
func componentRows(cfg *config.Config, files map[string]*versions.File, envs []EnvStatus) ([]ComponentStatus, []PendingStep) {
	drift := map[string]bool{} // env|component
	for _, es := range envs {
		for _, d := range es.Drift {
			drift[es.Env+"|"+d.Component] = true
		}
	}
	var pending []PendingStep
	moving := map[string]bool{} // dst|component
	for i := 1; i < len(cfg.Environments); i++ {
		src, dst := cfg.Environments[i-1], cfg.Environments[i]
		step := PendingStep{From: src, To: dst, Changes: []versions.Change{}}
		if files[src] == nil || files[dst] == nil {
			step.Error = "versions file unreadable"
		} else if ch, err := versions.Compare(files[src], files[dst], nil); err != nil {
			step.Error = oneLine(err.Error())
		} else {
			step.Changes = ch
			for _, c := range ch {
				moving[dst+"|"+c.Component] = true
			}
		}
		pending = append(pending, step)
	}
	var rows []ComponentStatus
	for _, comp := range cfg.Components {
		row := ComponentStatus{Component: comp.Key, Chart: comp.Chart}
		for _, env := range cfg.Environments {
			cv := ComponentValue{Env: env, Pending: moving[env+"|"+comp.Key], Drift: drift[env+"|"+comp.Key]}
			c, ok := componentOf(files[env], comp.Key)
			if !ok {
				cv.Missing = true
			}
			for _, f := range c.Fields {
				if cv.Fields == nil {
					cv.Fields = map[string]string{}
				}
				cv.Fields[f.Key] = f.Value
			}
			cv.ChartVersion, cv.ImageTag = cv.Fields[versions.ChartVersionKey], cv.Fields["imageTag"]
			row.Envs = append(row.Envs, cv)
		}
		rows = append(rows, row)
	}
	return rows, pending
}

func componentOf(f *versions.File, key string) (versions.Component, bool) {
	if f == nil {
		return versions.Component{}, false
	}
	c, ok := f.Component(key)
	return c, ok && c.Found
}

func orDefault(n, def int) int {
	if n <= 0 {
		return def
	}
	return n
}

// String is the short form of a promotion for tables.
func (p *Promotion) String() string {
	from := "pin"
	switch p.Verb {
	case "promote":
		from = "from " + p.From
	case "rollback":
		return fmt.Sprintf("%s to %s by %s (%s): %s", p.When.Format("2006-01-02 15:04 MST"), shortSHA(p.RolledBackTo),
			p.Author, shortSHA(p.Commit), p.Reason)
	}
	if p.FromCommit != "" {
		from += "@" + shortSHA(p.FromCommit)
	}
	return fmt.Sprintf("%s %s by %s (%s)", p.When.Format("2006-01-02 15:04 MST"), from, p.Author, shortSHA(p.Commit))
}

func shortSHA(s string) string {
	if len(s) > 8 {
		return s[:8]
	}
	return s
}

// markRejected marks every component value holding a rejected value; an
// unreadable rejected list is an error of every env.
func markRejected(tree fs.FS, files map[string]*versions.File, v *StatusView) {
	list, err := rejected.Read(tree)
	if err != nil {
		for i := range v.Envs {
			v.Envs[i].Errors = append(v.Envs[i].Errors, oneLine(err.Error()))
		}
		return
	}
	for i := range v.Components {
		row := &v.Components[i]
		for j := range row.Envs {
			cv := &row.Envs[j]
			c, ok := componentOf(files[cv.Env], row.Component)
			if !ok {
				continue
			}
			for _, f := range c.Fields {
				if _, hit := list.Find(row.Component, f.Key, f.Value); hit {
					cv.Rejected = append(cv.Rejected, f.Key)
				}
			}
		}
	}
}
