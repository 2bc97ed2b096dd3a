package syncready

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gitops-promote/gitops-promote/internal/scrub"
)

// Object is one rendered object as Argo CD would sync it: Namespace is ""
// for a cluster-scoped object, the destination namespace filled in for a
// namespaced one that named none (see diff.Resource).
type Object struct {
	APIVersion, Kind, Namespace, Name string
	// Schema is what the schema rules need of it (see NewSchema); zero
	// for an object they do not judge.
	Schema Schema
}

func (o Object) group() string {
	if i := strings.LastIndex(o.APIVersion, "/"); i >= 0 {
		return o.APIVersion[:i]
	}
	return ""
}

// App is one app of an env as the revision checked has it.
type App struct {
	Name    string
	Project string // "" is Argo CD's "default"
	// Server is the destination's server, or its name with ByName.
	Server    string
	ByName    bool
	Namespace string // destination namespace
	// Repos are the repoURLs of its sources (ref sources included: Argo
	// CD checks every source).
	Repos []string
	// Objects is what it renders (none when it was not rendered: only
	// its app-level rules apply).
	Objects []Object
}

// Env is one env's apps at one revision and where their rules come from.
type Env struct {
	Name string
	// Projects are the AppProjects found in the repository for the env;
	// Looked says where they were looked for, for a missing project's
	// message.
	Projects map[string]*Project
	Looked   string
	// Unreadable says which AppProject files did not parse: a project
	// they may hold is then missing, never assumed absent on purpose.
	Unreadable string
	// KubeVersion is the env's Kubernetes version ("1.31"); "" skips the
	// api-* rules.
	KubeVersion string
	Apps        []App
	// CRDs are the CustomResourceDefinitions found in the repository for
	// the env; one an app of the env renders is preferred.
	CRDs []CRD
}

// Check judges every app of e. The error is a bad KubeVersion only.
func Check(e Env) ([]Finding, error) {
	var out []Finding
	switch {
	case len(e.Projects) == 0 && len(e.Apps) > 0 && e.Unreadable == "":
		// A repository that keeps no AppProject (the admin's Argo CD
		// holds them) cannot be judged; saying so once is no pass.
		out = append(out, Finding{Rule: RuleProjectMissing, Severity: SeverityInfo, Env: e.Name,
			Message: fmt.Sprintf("no AppProject in the repository for env %s (looked in %s): the project rules were not checked", e.Name, e.Looked)})
	default:
		for _, a := range e.Apps {
			out = append(out, projectFindings(e, a)...)
		}
	}
	removed := map[string]bool{}
	if e.KubeVersion != "" {
		kube, err := parseVersion(e.KubeVersion)
		if err != nil {
			return nil, fmt.Errorf("env %s: %w", e.Name, err)
		}
		for _, a := range e.Apps {
			fs := apiFindings(e.Name, a, kube)
			for _, f := range fs {
				if f.Rule == RuleAPIRemoved {
					removed[f.key()] = true
				}
			}
			out = append(out, fs...)
		}
	}
	for _, f := range schemaFindings(e) {
		// the server refuses a removed apiVersion before it reads the body
		g := f
		g.Rule = RuleAPIRemoved
		if !removed[g.key()] {
			out = append(out, f)
		}
	}
	out = append(out, sharedFindings(e)...)
	Sort(out)
	return out, nil
}

func finding(rule, env string, a App, o Object, msg string) Finding {
	sev := SeverityError
	for _, r := range Rules {
		if r.ID == rule {
			sev = r.Severity
		}
	}
	return Finding{Rule: rule, Severity: sev, Env: env, App: a.Name, APIVersion: o.APIVersion, Kind: o.Kind,
		Namespace: o.Namespace, Name: o.Name, Message: msg}
}

// projectFindings applies a's AppProject to its sources, its destination
// and each object, as Argo CD does before and during a sync.
func projectFindings(e Env, a App) []Finding {
	name := orDefault(a.Project, "default")
	p := e.Projects[name]
	var out []Finding
	switch {
	case p == nil && e.Unreadable != "":
		return []Finding{finding(RuleProjectMissing, e.Name, a, Object{},
			fmt.Sprintf("AppProject %s is not in the readable files of the repository (looked in %s; %s)", name, e.Looked, e.Unreadable))}
	case p == nil && name == "default":
		f := finding(RuleProjectMissing, e.Name, a, Object{}, fmt.Sprintf("AppProject default is not in the repository (looked in %s): "+
			"Argo CD's built-in default, which permits any source, destination and kind, is assumed", e.Looked))
		f.Severity = SeverityInfo
		out, p = append(out, f), builtinDefault()
	case p == nil:
		return []Finding{finding(RuleProjectMissing, e.Name, a, Object{},
			fmt.Sprintf("AppProject %s is not in the repository (looked in %s): Argo CD refuses an app of an unknown project", name, e.Looked))}
	}
	for _, r := range a.Repos {
		if !sourcePermitted(p, r) {
			out = append(out, finding(RuleProjectSource, e.Name, a, Object{},
				fmt.Sprintf("repository %s is not permitted by %s", scrub.URL(r), p.where("sourceRepos"))))
		}
	}
	c := resolveCluster(a.Server, a.ByName)
	if f, bad := destination(e.Name, a, p, c, a.Namespace, Object{}, RuleProjectDestination); bad {
		out = append(out, f)
	}
	seen := map[string]bool{a.Namespace: true}
	for _, o := range a.Objects {
		namespaced := o.Namespace != ""
		if !kindPermitted(p, o.group(), o.Kind, o.Name, namespaced) {
			out = append(out, kindFinding(e.Name, a, p, o, namespaced))
			continue
		}
		if namespaced && !seen[o.Namespace] {
			if f, bad := destination(e.Name, a, p, c, o.Namespace, o, RuleProjectNamespace); bad {
				out = append(out, f) // each object of the namespace is refused
				continue
			}
			seen[o.Namespace] = true
		}
	}
	return out
}

// destination is the finding of a refused destination namespace; one Argo
// CD might accept through a cluster name or server we cannot resolve
// offline is a warning saying so.
func destination(env string, a App, p *Project, c cluster, ns string, o Object, rule string) (Finding, bool) {
	if destinationMatched(p, c, ns) {
		return Finding{}, false
	}
	dest := fmt.Sprintf("server %s", c.Server)
	if c.Server == "" {
		dest = fmt.Sprintf("cluster %s", c.Name)
	}
	f := finding(rule, env, a, o, fmt.Sprintf("namespace %s on %s is not permitted by %s", ns, dest, p.where("destinations")))
	if unsure(p, c) {
		f.Severity = SeverityWarning
		f.Message += " (unsure offline: some destinations name clusters by the field this app does not set)"
	}
	return f, true
}

func kindFinding(env string, a App, p *Project, o Object, namespaced bool) Finding {
	gk := o.Kind
	if g := o.group(); g != "" {
		gk = g + "/" + o.Kind
	}
	if namespaced {
		field := "namespaceResourceWhitelist"
		if p.NamespaceAllow == nil || inList(p.NamespaceAllow, o.group(), o.Kind, "", false) {
			field = "namespaceResourceBlacklist"
		}
		return finding(RuleProjectNSKind, env, a, o, fmt.Sprintf("%s is not permitted by %s", gk, p.where(field)))
	}
	field := "clusterResourceWhitelist"
	if inList(p.ClusterAllow, o.group(), o.Kind, o.Name, true) {
		field = "clusterResourceBlacklist"
	}
	return finding(RuleProjectClusterKind, env, a, o, fmt.Sprintf("cluster-scoped %s is not permitted by %s", gk, p.where(field)))
}

func apiFindings(env string, a App, kube version) []Finding {
	var out []Finding
	for _, o := range a.Objects {
		if rule, msg, ok := apiFinding(o.APIVersion, o.Kind, kube, kube.String()); ok {
			out = append(out, finding(rule, env, a, o, msg))
		}
	}
	return out
}

// sharedFindings flags each object two or more apps render, once per app,
// naming the others: Argo CD tracks it as one app's and the apps fight.
func sharedFindings(e Env) []Finding {
	by := map[string][]int{}
	var keys []string
	for i, a := range e.Apps {
		for _, o := range a.Objects {
			k := o.group() + "/" + o.Kind + "/" + o.Namespace + "/" + o.Name
			if ids := by[k]; len(ids) > 0 && ids[len(ids)-1] == i {
				continue // rendered twice by one app: Argo CD's own warning
			}
			if by[k] == nil {
				keys = append(keys, k)
			}
			by[k] = append(by[k], i)
		}
	}
	var out []Finding
	for _, k := range keys {
		ids := by[k]
		if len(ids) < 2 {
			continue
		}
		for _, i := range ids {
			var others []string
			for _, j := range ids {
				if j != i {
					others = append(others, e.Apps[j].Name)
				}
			}
			slices.Sort(others)
			o := objectOf(e.Apps[i], k)
			out = append(out, finding(RuleSharedResource, e.Name, e.Apps[i], o,
				fmt.Sprintf("also rendered by %s in env %s: the apps would fight over it", strings.Join(others, ", "), e.Name)))
		}
	}
	return out
}

func objectOf(a App, key string) Object {
	for _, o := range a.Objects {
		if o.group()+"/"+o.Kind+"/"+o.Namespace+"/"+o.Name == key {
			return o
		}
	}
	return Object{}
}

// builtinDefault is the default project Argo CD creates when none exists.
func builtinDefault() *Project {
	return &Project{Name: "default", File: "Argo CD's built-in default", SourceRepos: []string{"*"},
		Destinations: []Destination{{Server: "*", Namespace: "*"}}, ClusterAllow: []ResourceRule{{Group: "*", Kind: "*"}}}
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
