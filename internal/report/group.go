package report

import (
	"strings"

	"github.com/gitops-promote/gitops-promote/internal/diff"
)

// member is one app's occurrence of a resource change.
type member struct {
	App App
	Res diff.ResourceDiff
}

// group is a resource change that several apps share.
type group struct {
	Members []member
	apps    map[string]bool
}

// sharedChanges finds resource changes that are identical in at least two
// apps: same kind, same status and same hunks once the app's own name is
// (then its namespace) replaced, as happens when one chart version bump reaches many releases.
// Groups come in report order; the result maps env+"/"+app+"\x00"+key to its
// group.
func sharedChanges(r Report) ([]*group, map[string]*group) {
	bySig := map[string]*group{}
	var order []*group
	for _, g := range r.ordered() {
		for _, a := range g.Apps {
			if a.Status == StatusError {
				continue
			}
			for _, res := range changedResources(a) {
				sig := string(res.Status) + "\x00" + res.Kind + "\x00" + replaceName(replaceName(hunks(res.Diff), a.Name), a.Namespace)
				gr, ok := bySig[sig]
				if !ok {
					gr = &group{apps: map[string]bool{}}
					bySig[sig] = gr
					order = append(order, gr)
				}
				gr.Members = append(gr.Members, member{a, res})
				gr.apps[a.Env+"/"+a.Name] = true
			}
		}
	}
	var shared []*group
	index := map[string]*group{}
	for _, gr := range order {
		if len(gr.apps) < 2 {
			continue
		}
		shared = append(shared, gr)
		for _, m := range gr.Members {
			index[memberKey(m.App, m.Res)] = gr
		}
	}
	return shared, index
}

func memberKey(a App, res diff.ResourceDiff) string {
	return a.Env + "/" + a.Name + "\x00" + res.Key()
}

// hunks drops the "---"/"+++" header, which names the resource.
func hunks(d string) string {
	for range 2 {
		if strings.HasPrefix(d, "--- ") || strings.HasPrefix(d, "+++ ") {
			_, d, _ = strings.Cut(d, "\n")
		}
	}
	return d
}

// replaceName replaces whole-word occurrences of name with a marker. Word
// boundaries keep "api" from matching inside "apiVersion".
func replaceName(s, name string) string {
	if name == "" {
		return s
	}
	var sb strings.Builder
	last := 0
	for from := 0; ; {
		i := strings.Index(s[from:], name)
		if i < 0 {
			break
		}
		i += from
		end := i + len(name)
		if boundary(s, i-1) && boundary(s, end) {
			sb.WriteString(s[last:i])
			sb.WriteString("\x00app\x00")
			last = end
		}
		from = end
	}
	sb.WriteString(s[last:])
	return sb.String()
}

func boundary(s string, i int) bool {
	if i < 0 || i >= len(s) {
		return true
	}
	c := s[i]
	return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9')
}

// names lists the group's apps, at most limit of them.
func (gr *group) names(r Report, limit int) string {
	var out []string
	seen := map[string]bool{}
	for _, m := range gr.Members {
		l := r.appLabel(m.App)
		if seen[l] {
			continue
		}
		seen[l] = true
		out = append(out, l)
	}
	if len(out) > limit {
		return strings.Join(out[:limit], ", ") + "…"
	}
	return strings.Join(out, ", ")
}
