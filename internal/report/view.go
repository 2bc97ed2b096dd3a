package report

import (
	"slices"
	"strconv"
	"strings"

	"github.com/gitops-promote/gitops-promote/internal/diff"
)

// This file is the report as other presenters (internal/report/html) see
// it: the same order, grouping and anchors as the note, so every output
// agrees and the note can link into the HTML report.

// Env is one environment's apps in report order.
type Env struct {
	Name string
	Apps []App
}

// Envs returns the apps by environment: environments in order of first
// appearance, apps by name, as every output lists them.
func (r Report) Envs() []Env {
	groups := r.ordered()
	out := make([]Env, len(groups))
	for i, g := range groups {
		// a copy: the groups may be windows onto r.Apps (see inOrder)
		out[i] = Env{Name: g.Env, Apps: slices.Clone(g.Apps)}
	}
	return out
}

// Label names an app as the outputs do: env/name when the report has
// several environments, else the name alone.
func (r Report) Label(a App) string { return r.appLabel(a) }

// Changes returns the app's added, removed and changed resources.
func Changes(a App) []diff.ResourceDiff { return changedResources(a) }

// Shown reports whether an app gets a section of its own: unchanged apps
// are only counted, unless a source of theirs was not rendered.
func Shown(a App) bool { return visible(a) }

// Shared is a resource change identical in several apps once each app's
// own name and namespace are masked; its diff is shown once.
type Shared struct {
	// App and Res are the first occurrence, the one shown.
	App App
	Res diff.ResourceDiff
	// Apps has every app with the change, each once, in report order.
	Apps []App
	// Mechanical is set when every occurrence follows from its app's
	// version moves (Story): the change is told in the folded part.
	Mechanical bool
}

// SharedChanges returns the changes several apps share, grouped and
// ordered as the note groups them, and a look-up of the group (an index
// into the slice) of one app's resource; -1 when no other app shares it.
func (r Report) SharedChanges() ([]Shared, func(App, diff.ResourceDiff) int) {
	groups, index := sharedChanges(r)
	st := r.Story()
	out := make([]Shared, len(groups))
	pos := make(map[*group]int, len(groups))
	for i, gr := range groups {
		pos[gr] = i
		s := Shared{App: gr.Members[0].App, Res: gr.Members[0].Res, Mechanical: st.mechanicalGroup(gr)}
		seen := map[string]bool{}
		for _, m := range gr.Members {
			if k := m.App.Env + "/" + m.App.Name; !seen[k] {
				seen[k] = true
				s.Apps = append(s.Apps, m.App)
			}
		}
		out[i] = s
	}
	lookup := func(a App, res diff.ResourceDiff) int {
		if gr := index[memberKey(a, res)]; gr != nil {
			return pos[gr]
		}
		return -1
	}
	return out, lookup
}

// AppAnchor is the fragment that names an app in the HTML report
// ("app/prod/api"); the note links to it.
func AppAnchor(a App) string { return "app/" + anchorPart(a.Env) + "/" + anchorPart(a.Name) }

// MechanicalAnchor is the fragment of the folded section of changes that
// only follow the version moves.
const MechanicalAnchor = "mechanical"

// EnvAnchor is the fragment of an environment's section.
func EnvAnchor(env string) string { return "env/" + anchorPart(env) }

// SharedAnchor is the fragment of the i-th (from 0) shared change.
func SharedAnchor(i int) string { return "shared/" + strconv.Itoa(i+1) }

// ResourceAnchor is the fragment of one resource of an app.
func ResourceAnchor(a App, res diff.ResourceDiff) string {
	return "res/" + anchorPart(a.Env) + "/" + anchorPart(a.Name) + "/" + anchorPart(res.Kind) + "/" +
		anchorPart(res.Namespace) + "/" + anchorPart(res.Name)
}

// anchorPart keeps the characters that Kubernetes names and environment
// names use, which are safe both in an id and in a URL fragment, and
// spells any other byte as ~XX, so distinct names never share an anchor.
func anchorPart(s string) string {
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' {
			sb.WriteByte(c)
			continue
		}
		sb.WriteString("~" + strings.ToUpper(strconv.FormatUint(uint64(c)|0x100, 16)[1:]))
	}
	return sb.String()
}

// The live diff (manifestdiff --live), as the note words it.

// LiveTitle says what a live action means to a reviewer ("would be
// pruned", "drift: the cluster no longer matches main"); base is the
// report's base revision (Report.Base).
func LiveTitle(action, base string) string { return liveTitle(action, base) }

// LiveShown reports whether an app has anything to show in the live part.
func LiveShown(a App) bool { return liveVisible(a) }

// LiveTally summarises an app's live comparison ("1 create, 2 drift").
func LiveTally(l *Live) string { return liveTally(l) }

// FindingLine is one line about an object the live diff could not compare.
func FindingLine(f LiveFinding) string { return findingLine(f) }

// LiveWarnings name the envs whose cluster could not be compared at all.
func LiveWarnings(r Report) []string { return liveWarnings(r) }

// LiveAnchor is the fragment of an app's live comparison.
func LiveAnchor(a App) string { return "live/" + anchorPart(a.Env) + "/" + anchorPart(a.Name) }
