package promote

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/rejected"
	"github.com/gitops-promote/gitops-promote/internal/versions"
)

// RejectRequest records (or, with Unreject, removes) a rejected value.
type RejectRequest struct {
	Spec     string // COMPONENT@VALUE or COMPONENT.FIELD@VALUE
	Reason   string
	Unreject bool
}

// ParseRejectSpec splits COMPONENT[.FIELD]@VALUE. Without a field it is
// the component's field holding VALUE in some env: chartVersion or
// imageTag; a value no env holds, or more than one field holds, needs
// the field named.
func ParseRejectSpec(fsys fs.FS, cfg *config.Config, spec string) (comp config.Component, field, value string, err error) {
	key, value, ok := strings.Cut(spec, "@")
	if !ok || key == "" || value == "" {
		return comp, "", "", fmt.Errorf("%q is not COMPONENT@VERSION (e.g. ledger-node.api@1.4.0, or ledger-node.api.imageTag@v3.2.0)", spec)
	}
	if i := slices.IndexFunc(cfg.Components, func(c config.Component) bool { return c.Key == key }); i >= 0 {
		comp = cfg.Components[i]
	} else if comp, field, err = splitKey(cfg, key); err != nil {
		return comp, "", "", err
	}
	if field != "" {
		return comp, field, value, nil
	}
	var fields []string
	for _, env := range cfg.Environments {
		vf, err := readVersions(fsys, cfg, env)
		if err != nil {
			continue
		}
		c, _ := vf.Component(comp.Key)
		for _, f := range c.Fields {
			if f.Value == value && !slices.Contains(fields, f.Key) {
				fields = append(fields, f.Key)
			}
		}
	}
	switch len(fields) {
	case 1:
		return comp, fields[0], value, nil
	case 0:
		return comp, "", "", fmt.Errorf("no environment has %s at %s: name the field, e.g. %s.%s@%s",
			comp.Key, value, comp.Key, versions.ChartVersionKey, value)
	}
	return comp, "", "", fmt.Errorf("%s has %s in more than one field (%s): name the field, e.g. %s.%s@%s",
		comp.Key, value, strings.Join(fields, ", "), comp.Key, fields[0], value)
}

// BuildReject plans the one-file change of a reject or unreject on the
// tree fsys. Rejecting a value already rejected, or unrejecting one that
// is not, plans nothing (a re-run after a kill finds its work done).
func BuildReject(fsys fs.FS, cfg *config.Config, req RejectRequest) (*Plan, error) {
	comp, field, value, err := ParseRejectSpec(fsys, cfg, req.Spec)
	if err != nil {
		return nil, err
	}
	list, err := rejected.Read(fsys)
	if err != nil {
		return nil, err
	}
	verb := "reject"
	if req.Unreject {
		verb = "unreject"
	}
	p := &Plan{Verb: verb, To: rejected.Path, Old: map[string][]byte{}, New: map[string][]byte{},
		rebuild: func(tip fs.FS) (*Plan, error) { return BuildReject(tip, cfg, req) }}
	e := rejected.Entry{Component: comp.Key, Field: field, Value: value, Reason: oneLine(req.Reason)}
	var out []byte
	var changed bool
	edit := Edit{File: rejected.Path, Component: comp.Key, Key: field}
	if req.Unreject {
		out, changed = list.Remove(comp.Key, field, value)
		edit.Old = value
	} else {
		out, changed = list.Add(e)
		edit.New = value
	}
	p.Reject = &e
	if !changed {
		return p, nil
	}
	if _, err := rejected.Parse(out); err != nil {
		return nil, fmt.Errorf("%s would not parse after the edit (fix it by hand first): %w", rejected.Path, err)
	}
	old, _ := fs.ReadFile(fsys, rejected.Path)
	p.Old[rejected.Path], p.New[rejected.Path] = old, out
	p.Edits = []Edit{edit}
	p.Rows = []Row{{Component: comp.Key, Key: field, From: orDash(edit.Old), To: orDash(edit.New), Files: []string{rejected.Path}}}
	return p, nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
