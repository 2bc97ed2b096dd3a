package parity

import (
	"encoding/json"
	"fmt"
	"path"
	"reflect"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// refusedByBoth is the class of an app both refuse: not a difference.
const refusedByBoth = "refused by both"

// difference is one way manifestdiff's rendering of an app is not Argo
// CD's.
type difference struct {
	corpus, env, app string
	class            string // what differs (see byDesignTable)
	object           string // group/kind/namespace/name, if one object
	detail           string
}

func (d difference) String() string {
	s := fmt.Sprintf("%s: env %s, app %s: %s", d.corpus, d.env, d.app, d.class)
	if d.object != "" {
		s += " " + d.object
	}
	if d.detail != "" {
		s += ": " + d.detail
	}
	return s
}

// compareApp compares one app: both fail, or both render the same
// objects with the same content and raise the same warnings.
func compareApp(corpusName string, o ourApp, objs []*unstructured.Unstructured, warnings []string, argoErr error) []difference {
	d := difference{corpus: corpusName, env: o.Env, app: o.Name}
	switch {
	case argoErr != nil && o.Error != "":
		// agreement, listed in the log so that a refusal for a reason
		// of the suite's own (a corpus Argo CD cannot reach) shows
		d.class, d.detail = refusedByBoth, "Argo CD: "+oneLine(argoErr.Error())+"; manifestdiff: "+o.Error
		return []difference{d}
	case argoErr != nil:
		d.class, d.detail = "error only in Argo CD", oneLine(argoErr.Error())
		return []difference{d}
	case o.Error != "":
		d.class, d.detail = "error only in manifestdiff", o.Error
		return []difference{d}
	}
	var out []difference
	theirs, ourObjs := map[string][]map[string]any{}, map[string][]map[string]any{}
	for _, u := range objs {
		theirs[argoKey(u)] = append(theirs[argoKey(u)], asJSON(u.Object))
	}
	for _, obj := range o.Objects {
		k := group(obj.APIVersion) + "/" + obj.Kind + "/" + obj.Namespace + "/" + obj.Name
		if obj.GenerateName != "" {
			k = group(obj.APIVersion) + "/" + obj.Kind + "/" + obj.Namespace + "/" + obj.GenerateName + "*"
		}
		ourObjs[k] = append(ourObjs[k], asJSON(obj.Object))
	}
	for k, want := range theirs {
		got, ok := ourObjs[k]
		switch {
		case !ok:
			out = append(out, with(d, "object missing in manifestdiff", k, ""))
		case len(got) != len(want):
			out = append(out, with(d, "object count", k, fmt.Sprintf("Argo CD %d, manifestdiff %d", len(want), len(got))))
		default:
			sortByJSON(got)
			sortByJSON(want)
			for i := range want {
				if p := firstDiff("", want[i], got[i]); p != "" {
					out = append(out, with(d, "content", k, p))
					break
				}
			}
		}
	}
	for k := range ourObjs {
		if _, ok := theirs[k]; !ok {
			out = append(out, with(d, "object only in manifestdiff", k, ""))
		}
	}
	ourW := append([]string(nil), o.Warnings...)
	sort.Strings(ourW)
	if !reflect.DeepEqual(nonNil(ourW), nonNil(warnings)) {
		out = append(out, with(d, "warnings", "", fmt.Sprintf("Argo CD %q, manifestdiff %q", warnings, ourW)))
	}
	return out
}

// argoKey keys an object as manifestdiff does; an object Argo CD names
// at sync (generateName, no name) by its generateName.
func argoKey(u *unstructured.Unstructured) string {
	gvk := u.GroupVersionKind()
	if u.GetName() == "" && u.GetGenerateName() != "" {
		return gvk.Group + "/" + gvk.Kind + "/" + u.GetNamespace() + "/" + u.GetGenerateName() + "*"
	}
	return gvk.Group + "/" + gvk.Kind + "/" + u.GetNamespace() + "/" + u.GetName()
}

func with(d difference, class, object, detail string) difference {
	d.class, d.object, d.detail = class, object, detail
	return d
}

// asJSON is obj as JSON reads it back: numbers, maps and lists in one
// representation whichever decoder produced them.
func asJSON(obj map[string]any) map[string]any {
	data, err := json.Marshal(obj)
	if err != nil {
		return map[string]any{"unencodable": err.Error()}
	}
	var out map[string]any
	_ = json.Unmarshal(data, &out)
	return out
}

func sortByJSON(objs []map[string]any) {
	sort.Slice(objs, func(i, j int) bool {
		a, _ := json.Marshal(objs[i])
		b, _ := json.Marshal(objs[j])
		return string(a) < string(b)
	})
}

// firstDiff is the first path at which want and got differ, with both
// values, or "".
func firstDiff(at string, want, got any) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: Argo CD %s, manifestdiff %s", or(at, "."), short(want), short(got))
		}
		keys := map[string]bool{}
		for k := range w {
			keys[k] = true
		}
		for k := range g {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			if p := firstDiff(at+"."+k, w[k], g[k]); p != "" {
				return p
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return fmt.Sprintf("%s: Argo CD %s, manifestdiff %s", at, short(want), short(got))
		}
		for i := range w {
			if p := firstDiff(fmt.Sprintf("%s[%d]", at, i), w[i], g[i]); p != "" {
				return p
			}
		}
		return ""
	}
	if !reflect.DeepEqual(want, got) {
		return fmt.Sprintf("%s: Argo CD %s, manifestdiff %s", at, short(want), short(got))
	}
	return ""
}

func short(v any) string {
	if v == nil {
		return "(absent)"
	}
	b, _ := json.Marshal(v)
	if len(b) > 120 {
		return string(b[:120]) + "..."
	}
	return string(b)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func group(apiVersion string) string {
	if i := strings.LastIndex(apiVersion, "/"); i >= 0 {
		return apiVersion[:i]
	}
	return ""
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 400 {
		s = s[:400] + "..."
	}
	return s
}

// byDesign returns the row of byDesignTable that explains d, or -1.
func byDesign(d difference) int {
	for i, b := range byDesignTable {
		if b.class != d.class {
			continue
		}
		if ok, _ := path.Match(b.app, d.corpus+"/"+d.env+"/"+d.app); !ok {
			continue
		}
		if b.object != "" && !strings.Contains(d.object+" "+d.detail, b.object) {
			continue
		}
		return i
	}
	return -1
}

// byDesignTable lists the differences that are by design, each with its
// reason; docs/manifestdiff.md has the same table for users. The suite
// fails on any other difference, and on a row that explains nothing.
var byDesignTable = []struct {
	class  string // difference.class
	app    string // path.Match pattern of corpus/env/app
	object string // a substring of the object key or detail; "" any
	reason string
}{}

func hasContent(ds []difference) bool {
	for _, d := range ds {
		if d.class == "content" {
			return true
		}
	}
	return false
}

// dropGenerated removes the content differences of objects that Argo
// CD's two renders (first, again) disagree on themselves.
func dropGenerated(ds []difference, first, again []*unstructured.Unstructured) []difference {
	byKey := map[string]map[string]any{}
	for _, u := range first {
		byKey[argoKey(u)] = asJSON(u.Object)
	}
	unstable := map[string]bool{}
	for _, u := range again {
		if prev, ok := byKey[argoKey(u)]; ok && firstDiff("", prev, asJSON(u.Object)) != "" {
			unstable[argoKey(u)] = true
		}
	}
	out := ds[:0]
	for _, d := range ds {
		if d.class == "content" && unstable[d.object] {
			continue
		}
		out = append(out, d)
	}
	return out
}
