package kube

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	jsonpatch "github.com/evanphx/json-patch"
	"github.com/gobwas/glob"
	"github.com/itchyny/gojq"

	"github.com/gitops-promote/gitops-promote/internal/argo"
)

// jqTimeout bounds one jq expression on one object, as Argo CD's default
// (1 s) does.
const jqTimeout = time.Second

// Ignore is an app's compiled spec.ignoreDifferences.
type Ignore struct {
	rules []ignoreRule
}

type ignoreRule struct {
	argo.IgnoreDifference
	group, kind glob.Glob
	pointers    []jsonpatch.Patch
	jq          []*gojq.Code
}

// CompileIgnore compiles an app's ignoreDifferences: a JSON pointer that is
// not one, or a jq expression that does not parse, is an error naming it,
// as Argo CD fails the comparison of such an app.
func CompileIgnore(ids []argo.IgnoreDifference) (*Ignore, error) {
	out := &Ignore{}
	for i, id := range ids {
		r := ignoreRule{IgnoreDifference: id}
		var err error
		// Argo CD matches group and kind as globs without separators; an
		// empty group is the core group.
		if r.group, err = glob.Compile(id.Group); err != nil {
			return nil, fmt.Errorf("ignoreDifferences[%d].group %q: %w", i, id.Group, err)
		}
		if r.kind, err = glob.Compile(id.Kind); err != nil {
			return nil, fmt.Errorf("ignoreDifferences[%d].kind %q: %w", i, id.Kind, err)
		}
		for _, p := range id.JSONPointers {
			op, _ := json.Marshal([]map[string]string{{"op": "remove", "path": p}})
			patch, err := jsonpatch.DecodePatch(op)
			if err != nil {
				return nil, fmt.Errorf("ignoreDifferences[%d].jsonPointers %q: %w", i, p, err)
			}
			r.pointers = append(r.pointers, patch)
		}
		for _, e := range id.JQPathExpressions {
			q, err := gojq.Parse("del(" + e + ")")
			if err != nil {
				return nil, fmt.Errorf("ignoreDifferences[%d].jqPathExpressions %q: %w", i, e, err)
			}
			code, err := gojq.Compile(q)
			if err != nil {
				return nil, fmt.Errorf("ignoreDifferences[%d].jqPathExpressions %q: %w", i, e, err)
			}
			r.jq = append(r.jq, code)
		}
		out.rules = append(out.rules, r)
	}
	return out, nil
}

func (ig *Ignore) matching(r Ref) []ignoreRule {
	if ig == nil {
		return nil
	}
	var out []ignoreRule
	for _, rule := range ig.rules {
		if rule.group.Match(r.Group()) && rule.kind.Match(r.Kind) &&
			(rule.Name == "" || rule.Name == r.Name) && (rule.Namespace == "" || rule.Namespace == r.Namespace) {
			out = append(out, rule)
		}
	}
	return out
}

// managers are the trusted managedFieldsManagers of every rule matching r,
// merged without repeats as Argo CD merges them.
func (ig *Ignore) managers(r Ref) []string {
	var out []string
	seen := map[string]bool{}
	for _, rule := range ig.matching(r) {
		for _, m := range rule.ManagedFieldsManagers {
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	return out
}

// apply removes the ignored fields of obj in rule order, as Argo CD's
// ignore normalizer does: a pointer or expression that does not apply to
// this object (a missing path) is skipped, never an error. A jq expression
// that fails otherwise, or times out, is returned as an error.
func (ig *Ignore) apply(r Ref, obj map[string]any) (map[string]any, error) {
	rules := ig.matching(r)
	if obj == nil || len(rules) == 0 {
		return obj, nil
	}
	doc, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	for _, rule := range rules {
		for _, p := range rule.pointers {
			if out, err := p.Apply(doc); err == nil {
				doc = out
			}
		}
		for i, code := range rule.jq {
			out, err := runJQ(code, doc)
			if err != nil {
				return nil, fmt.Errorf("%s: jqPathExpressions %q: %w", r, rule.JQPathExpressions[i], err)
			}
			doc = out
		}
	}
	return decodeJSON(doc)
}

func runJQ(code *gojq.Code, doc []byte) ([]byte, error) {
	v, err := decodeAny(doc)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), jqTimeout)
	defer cancel()
	iter := code.RunWithContext(ctx, v)
	first, ok := iter.Next()
	if !ok {
		return nil, errors.New("returned no data")
	}
	if err, ok := first.(error); ok {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("timed out after %s", jqTimeout)
		}
		return nil, err
	}
	if _, more := iter.Next(); more {
		return nil, errors.New("returned several objects")
	}
	return json.Marshal(first)
}

// decodeJSON decodes an object keeping integers integers, so a value
// prints the same whether or not a rule touched its object.
func decodeJSON(doc []byte) (map[string]any, error) {
	v, err := decodeAny(doc)
	if err != nil {
		return nil, err
	}
	m, ok := plainNumbers(v).(map[string]any)
	if !ok {
		return nil, fmt.Errorf("not an object after ignoreDifferences")
	}
	return m, nil
}

func decodeAny(doc []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

func plainNumbers(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = plainNumbers(e)
		}
	case []any:
		for i, e := range t {
			t[i] = plainNumbers(e)
		}
	case json.Number:
		if n, err := strconv.ParseInt(string(t), 10, 64); err == nil {
			return n
		}
		f, _ := t.Float64()
		return f
	}
	return v
}
