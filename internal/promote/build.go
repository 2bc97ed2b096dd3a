package promote

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/gitops-promote/gitops-promote/internal/suggest"

	"github.com/gitops-promote/gitops-promote/internal/argo"
	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/ordering"
	"github.com/gitops-promote/gitops-promote/internal/versions"
)

var (
	// ErrPolicy marks a plan refused by policy (unpinned, downgrade, path).
	ErrPolicy = errors.New("refused by policy")
	// ErrOrdering marks a target environment with ordering findings.
	ErrOrdering = errors.New("ordering checks failed")
)

// PromoteRequest describes a promotion from one environment to the next.
type PromoteRequest struct {
	From, To       string
	Only           []string
	ForcePath      bool
	AllowDowngrade bool
	IgnoreOrdering bool
	// ChartRepository, when set, is called with the repository of every
	// chart version the plan pins as soon as the target's manifests name
	// it, so the chart check's indexes can be fetched while the plan is
	// finished. Only repositories of Helm sources are named: a git
	// source's repoURL is never a chart repository to send credentials to.
	ChartRepository func(repoURL string)
}

// BuildPromotionFrom plans promoting every in-scope component field of
// From into To, reading From's versions file from source (the tree of the
// source revision) and To's versions file and manifests from fsys.
func BuildPromotionFrom(fsys, source fs.FS, cfg *config.Config, req PromoteRequest) (*Plan, error) {
	if err := cfg.CheckEnv(req.From); err != nil {
		return nil, fmt.Errorf("--from: %w", err)
	}
	if err := cfg.CheckEnv(req.To); err != nil {
		return nil, fmt.Errorf("--to: %w", err)
	}
	if err := versions.CheckPath(cfg.Environments, req.From, req.To); err != nil && !(req.ForcePath && req.From != req.To) {
		return nil, err
	}
	// The ordering checks parse every env's manifests and need nothing of
	// the plan: they run beside it on the other core. The target env's
	// manifests are read once, first, and handed to both: the checks
	// wait for them, and the chart indexes are fetched meanwhile. A read
	// error is reported where the plan uses them, after the policy
	// checks; the checks then read them themselves.
	p := &Plan{Verb: "promote", From: req.From, To: req.To, Only: req.Only, chartRepository: req.ChartRepository}
	target := make(chan []argo.Manifest, 1)
	ordering := make(chan error, 1)
	go func() { ordering <- checkOrdering(fsys, cfg, req, p, awaitManifests(req.To, target)) }()
	files, err := p.readManifests(fsys, cfg, req.To, func(f manifestFile) { p.prefetchCharts(cfg, f) })
	target <- argoManifests(files, err)
	plan, err := buildPromotion(fsys, source, cfg, req, p)
	// An ordering refusal comes first.
	if oerr := <-ordering; oerr != nil {
		return nil, oerr
	}
	return plan, err
}

func buildPromotion(fsys, source fs.FS, cfg *config.Config, req PromoteRequest, p *Plan) (*Plan, error) {
	src, err := readVersions(source, cfg, req.From)
	if err != nil {
		return nil, err
	}
	dst, err := readVersions(fsys, cfg, req.To)
	if err != nil {
		return nil, err
	}
	if err := versions.CheckOnly(src, req.Only); err != nil {
		return nil, err
	}
	changes, err := versions.Compare(src, dst, req.Only)
	if err != nil {
		return nil, err
	}
	if err := checkSourcePinned(src, req.Only); err != nil {
		return nil, err
	}
	var sets []fieldSet
	var problems []string
	for _, comp := range cfg.Components {
		if len(req.Only) > 0 && !slices.Contains(req.Only, comp.Key) {
			continue
		}
		sc, _ := src.Component(comp.Key)
		for _, f := range sc.Fields {
			sets = append(sets, fieldSet{comp: comp, key: f.Key, to: f.Value, tag: f.Tag})
		}
	}
	for _, c := range changes {
		if c.Key == versions.ChartVersionKey && !req.AllowDowngrade {
			if err := versions.CheckUpgrade(c.Component, c.From, c.To); err != nil {
				problems = append(problems, strings.TrimSuffix(err.Error(), ": "+versions.ErrDowngrade.Error()))
			}
		}
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%s: %w: %w", strings.Join(problems, "; "), versions.ErrDowngrade, ErrPolicy)
	}
	if err := build(fsys, cfg, req.To, sets, p); err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(sets, func(s fieldSet) bool { return s.key == versions.ChartVersionKey }) {
		// No chart moves, so the plan used none of the target's manifests;
		// their read error still refuses the promotion (a duplicate key),
		// as it does when a chart moves.
		if _, err := p.readManifests(fsys, cfg, req.To); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// checkOrdering refuses to promote into an environment whose sync waves,
// dependencies or sync policies are wrong: the promotion would deploy in
// the wrong order. --ignore-ordering records the override in the plan.
func checkOrdering(fsys fs.FS, cfg *config.Config, req PromoteRequest, p *Plan, target ordering.Manifests) error {
	found, err := orderingFindings(fsys, cfg, req.To, target)
	if err != nil {
		return err
	}
	if len(found) == 0 {
		return nil
	}
	if req.IgnoreOrdering {
		p.OrderingIgnored = len(found)
		return nil
	}
	var items []string
	for _, f := range found {
		if len(items) == 3 {
			items = append(items, fmt.Sprintf("and %d more (see promote check --env %s)", len(found)-3, req.To))
			break
		}
		items = append(items, fmt.Sprintf("%s %s: %s", f.Rule, f.App, f.Message))
	}
	return fmt.Errorf("%s has %d ordering finding(s): %s: %w", req.To, len(found), strings.Join(items, "; "), ErrOrdering)
}

func readVersions(fsys fs.FS, cfg *config.Config, env string) (*versions.File, error) {
	path := cfg.VersionsPath(env)
	data, err := fs.ReadFile(fsys, path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return versions.Read(path, data, cfg.Components)
}

// checkSourcePinned refuses to promote any floating value, changed or not:
// after a promotion the target must hold only pinned versions.
func checkSourcePinned(src *versions.File, only []string) error {
	var problems []string
	for _, c := range src.Components {
		if len(only) > 0 && !slices.Contains(only, c.Key) {
			continue
		}
		for _, f := range c.Fields {
			if err := versions.CheckPinned(f.Key, f.Value); err != nil {
				problems = append(problems, fmt.Sprintf("%s:%d: %s.%s", src.Path, f.Line, c.Key, strings.TrimSuffix(err.Error(), ": "+versions.ErrUnpinned.Error())))
			}
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s: %w: %w", strings.Join(problems, "; "), versions.ErrUnpinned, ErrPolicy)
	}
	return nil
}

// PinRequest sets fields of one environment to given values.
type PinRequest struct {
	Env            string
	Sets           []KeyValue
	AllowDowngrade bool
	// ChartRepository is PromoteRequest's.
	ChartRepository func(repoURL string)
}

// KeyValue is one KEY=VALUE argument of pin.
type KeyValue struct{ Key, Value string }

// ParseKeyValues parses KEY=VALUE arguments; keys must be unique.
func ParseKeyValues(args []string) ([]KeyValue, error) {
	if len(args) == 0 {
		return nil, errors.New("pin needs at least one KEY=VALUE")
	}
	var out []KeyValue
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("%q is not KEY=VALUE (KEY is a component's key and a field: COMPONENT.imageTag=v2.2.1)", a)
		}
		if slices.ContainsFunc(out, func(kv KeyValue) bool { return kv.Key == k }) {
			return nil, fmt.Errorf("%s is given twice", k)
		}
		out = append(out, KeyValue{Key: k, Value: v})
	}
	return out, nil
}

// BuildPin plans setting fields of req.Env. Each key is a configured
// component's key path plus one field; a chartVersion also repins every
// Helm source of that chart in the env's manifests.
func BuildPin(fsys fs.FS, cfg *config.Config, req PinRequest) (*Plan, error) {
	if err := cfg.CheckEnv(req.Env); err != nil {
		return nil, fmt.Errorf("--env: %w", err)
	}
	cur, err := readVersions(fsys, cfg, req.Env)
	if err != nil {
		return nil, err
	}
	var sets []fieldSet
	var problems []string
	for _, kv := range req.Sets {
		comp, field, err := splitKey(cfg, kv.Key)
		if err != nil {
			return nil, fmt.Errorf("%w%s", err, suggest.Hint("", kv.Key, fieldKeys(cur)))
		}
		if c, _ := cur.Component(comp.Key); c.Found {
			if _, ok := c.Field(field); !ok {
				return nil, fmt.Errorf("%s: %s has no field %s%s: %w", kv.Key, cur.Path, field,
					suggest.Hint("", kv.Key, fieldKeys(cur)), versions.ErrMissing)
			}
		}
		if err := versions.CheckPinned(field, kv.Value); err != nil {
			problems = append(problems, kv.Key+": "+strings.TrimSuffix(err.Error(), ": "+versions.ErrUnpinned.Error()))
			continue
		}
		c, _ := cur.Component(comp.Key)
		old, ok := c.Field(field)
		if ok && field == versions.ChartVersionKey && !req.AllowDowngrade {
			if err := versions.CheckUpgrade(comp.Key, old.Value, kv.Value); err != nil {
				return nil, fmt.Errorf("%w: %w", err, ErrPolicy)
			}
		}
		sets = append(sets, fieldSet{comp: comp, key: field, to: kv.Value, tag: pinTag(old.Tag, kv.Value)})
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%s: %w: %w", strings.Join(problems, "; "), versions.ErrUnpinned, ErrPolicy)
	}
	p := &Plan{Verb: "pin", To: req.Env, chartRepository: req.ChartRepository}
	if err := build(fsys, cfg, req.Env, sets, p); err != nil {
		return nil, err
	}
	return p, nil
}

// splitKey maps "dlt-node.backend.imageTag" to its component and field.
func splitKey(cfg *config.Config, key string) (config.Component, string, error) {
	for _, c := range cfg.Components {
		if rest, ok := strings.CutPrefix(key, c.Key+"."); ok && rest != "" && !strings.Contains(rest, ".") {
			return c, rest, nil
		}
	}
	var keys []string
	for _, c := range cfg.Components {
		keys = append(keys, c.Key+".<field>")
	}
	return config.Component{}, "", fmt.Errorf("%s is not a field of a configured component (expected one of %s)", key, joinLimit(keys))
}

// fieldKeys lists every field of f as pin names it: "component.field".
func fieldKeys(f *versions.File) []string {
	var out []string
	for _, c := range f.Components {
		for _, fl := range c.Fields {
			out = append(out, c.Key+"."+fl.Key)
		}
	}
	return out
}

// pinTag keeps a number or bool field's type when the pinned text is one
// of the same type; anything else is written as a string.
func pinTag(oldTag, value string) string {
	if oldTag != "" && versions.ResolvesAs(value) == oldTag {
		return oldTag
	}
	return ""
}
