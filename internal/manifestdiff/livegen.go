package manifestdiff

import (
	"encoding/base64"
	"fmt"
	"reflect"

	"github.com/gitops-promote/gitops-promote/internal/diff"
)

// generated holds, per object key, the two head renders of an app whose
// fields differ between them (randAlphaNum, genCA...): such a field would
// show as a live change on every run, whatever the change under review.
type generated map[string][2]map[string]any

// generatedFields pairs the objects of two head renders by key, keeping
// those that differ somewhere.
func generatedFields(head, again []diff.Resource) generated {
	if len(again) == 0 {
		return nil
	}
	byKey := make(map[string]map[string]any, len(again))
	for _, r := range again {
		byKey[r.Key()] = r.Object
	}
	out := generated{}
	for _, r := range head {
		if a, ok := byKey[r.Key()]; ok && !reflect.DeepEqual(r.Object, a) {
			out[r.Key()] = [2]map[string]any{r.Object, a}
		}
	}
	return out
}

// again returns obj (one side of a live pair) as a second head render
// would make it: a copy whose generated fields hold another value. Handed
// to diff.Resources as the side's second render, it makes the offline
// diff's own rule apply: those fields are masked on both sides and listed
// as generated instead of shown as a change. nil when key has no
// generated field.
//
// A Secret's generated stringData key is data.<key> (base64) on a live
// object or a dry run: the API server moves stringData into data.
func (g generated) again(key string, obj map[string]any) map[string]any {
	renders, ok := g[key]
	if !ok || obj == nil {
		return nil
	}
	out := diff.CopyObject(obj)
	n := 0
	eachDifference(renders[0], renders[1], nil, func(p []any, other any) {
		if setIfPresent(out, p, mark(other)) {
			n++
			return
		}
		if len(p) == 2 && p[0] == "stringData" {
			if s, ok := other.(string); ok && setIfPresent(out, []any{"data", p[1]}, mark(base64.StdEncoding.EncodeToString([]byte(s)))) {
				n++
			}
		}
	})
	if n == 0 {
		return nil
	}
	return out
}

// mark makes a value that differs from any value the field could hold on
// the side being compared, so the diff sees the field as generated.
func mark(v any) any { return []any{"\x00generated", fmt.Sprint(v)} }

// eachDifference calls fn with the path of every place a and b differ:
// leaves, a key one side lacks, lists of different lengths (the whole
// list), values of different types.
func eachDifference(a, b any, p []any, fn func(p []any, other any)) {
	switch av := a.(type) {
	case map[string]any:
		if bv, ok := b.(map[string]any); ok {
			for k, x := range av {
				eachDifference(x, bv[k], append(p[:len(p):len(p)], k), fn)
			}
			for k, y := range bv {
				if _, ok := av[k]; !ok {
					fn(append(p[:len(p):len(p)], k), y)
				}
			}
			return
		}
	case []any:
		if bv, ok := b.([]any); ok && len(av) == len(bv) {
			for i := range av {
				eachDifference(av[i], bv[i], append(p[:len(p):len(p)], i), fn)
			}
			return
		}
	}
	if !reflect.DeepEqual(a, b) {
		fn(p, b)
	}
}

// setIfPresent sets the value at p when obj has a value there: a field
// the side lacks has nothing to compare.
func setIfPresent(obj map[string]any, p []any, v any) bool {
	if len(p) == 0 {
		return false
	}
	var cur any = obj
	for _, seg := range p[:len(p)-1] {
		switch c := cur.(type) {
		case map[string]any:
			k, ok := seg.(string)
			if !ok {
				return false
			}
			if cur, ok = c[k]; !ok {
				return false
			}
		case []any:
			i, ok := seg.(int)
			if !ok || i >= len(c) {
				return false
			}
			cur = c[i]
		default:
			return false
		}
	}
	switch c := cur.(type) {
	case map[string]any:
		if k, ok := p[len(p)-1].(string); ok {
			if _, exists := c[k]; exists {
				c[k] = v
				return true
			}
		}
	case []any:
		if i, ok := p[len(p)-1].(int); ok && i < len(c) {
			c[i] = v
			return true
		}
	}
	return false
}
