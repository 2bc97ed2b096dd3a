// Package syncready judges, offline and from the repository alone, whether
// Argo CD would accept the objects an app renders when someone clicks Sync:
// whether the app's AppProject permits its sources, destination and every
// object (as Argo CD v3.6 applies AppProject rules), whether the env's
// Kubernetes version still serves each object's API version (from
// k8s.io/api's generated prerelease-lifecycle data), whether each object
// passes the API server's strict field validation (built-in kinds by the
// schema client-go embeds, custom resources by their CRDs), and whether
// two apps of one env render the same object. It never prints.
package syncready

import (
	"cmp"
	"slices"
)

// Severities, most serious first.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
	SeverityInfo    = "info"
	// SeverityOff, set in .promote.yaml, drops a rule's findings.
	SeverityOff = "off"
)

// Rule ids: stable, for scripts and .promote.yaml.
const (
	RuleProjectMissing       = "project-missing"
	RuleProjectSource        = "project-source"
	RuleProjectDestination   = "project-destination"
	RuleProjectNamespace     = "project-namespace"
	RuleProjectClusterKind   = "project-cluster-resource"
	RuleProjectNSKind        = "project-namespace-resource"
	RuleAPIRemoved           = "api-removed"
	RuleAPIDeprecated        = "api-deprecated"
	RuleSharedResource       = "shared-resource"
	RuleSchemaUnknownField   = "schema-unknown-field"
	RuleSchemaType           = "schema-type"
	RuleSchemaDuplicateField = "schema-duplicate-field"
	RuleSchemaUnknownKind    = "schema-unknown-kind"
)

// Rules lists every rule with its default severity, in the order the docs
// list them.
var Rules = []struct{ ID, Severity string }{
	{RuleProjectMissing, SeverityError},
	{RuleProjectSource, SeverityError},
	{RuleProjectDestination, SeverityError},
	{RuleProjectNamespace, SeverityError},
	{RuleProjectClusterKind, SeverityError},
	{RuleProjectNSKind, SeverityError},
	{RuleAPIRemoved, SeverityError},
	{RuleAPIDeprecated, SeverityWarning},
	{RuleSharedResource, SeverityError},
	{RuleSchemaUnknownField, SeverityError},
	{RuleSchemaType, SeverityError},
	{RuleSchemaDuplicateField, SeverityWarning},
	{RuleSchemaUnknownKind, SeverityInfo},
}

// Finding is one thing Argo CD would refuse or break at sync. An app-level
// finding (its project, sources, destination) names no object.
type Finding struct {
	Rule       string `json:"rule"`
	Severity   string `json:"severity"`
	Env        string `json:"env"`
	App        string `json:"app"`
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace"`
	Name       string `json:"name"`
	// Message is one line naming the rule's source: the AppProject's
	// file:line, the Kubernetes version.
	Message string `json:"message"`
	// Preexisting marks a finding the base revision already had: an MR is
	// judged by what it adds.
	Preexisting bool `json:"preexisting,omitempty"`
}

// key identifies a finding across revisions: its message may name other
// lines, so it is left out.
func (f Finding) key() string {
	return f.Rule + "\x00" + f.Env + "\x00" + f.App + "\x00" + f.APIVersion + "\x00" + f.Kind + "\x00" + f.Namespace + "\x00" + f.Name
}

func rank(severity string) int {
	switch severity {
	case SeverityError:
		return 0
	case SeverityWarning:
		return 1
	}
	return 2
}

// MarkPreexisting marks each app's finding of head that base also has,
// and sorts head (see Order): new findings first, then by severity, env,
// app, object and rule. An env's own findings (no app: a note on what
// could not be checked) are never preexisting, so that every shard of a
// run says the same of them.
func MarkPreexisting(head, base []Finding, envs []string) []Finding {
	had := make(map[string]bool, len(base))
	for _, f := range base {
		had[f.key()] = true
	}
	for i := range head {
		head[i].Preexisting = head[i].App != "" && had[head[i].key()]
	}
	Order(head, envs)
	return head
}

// Sort orders findings as every output lists them: new before
// preexisting, errors first, then env (by name), app, object, rule.
func Sort(fs []Finding) { Order(fs, nil) }

// Order is Sort with envs in the order given (the report's), any other
// after them by name.
func Order(fs []Finding, envs []string) {
	envRank := func(e string) int {
		if i := slices.Index(envs, e); i >= 0 {
			return i
		}
		return len(envs)
	}
	slices.SortStableFunc(fs, func(a, b Finding) int {
		if a.Preexisting != b.Preexisting {
			if a.Preexisting {
				return 1
			}
			return -1
		}
		return cmp.Or(cmp.Compare(rank(a.Severity), rank(b.Severity)), cmp.Compare(envRank(a.Env), envRank(b.Env)), cmp.Compare(a.Env, b.Env),
			cmp.Compare(a.App, b.App), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Namespace, b.Namespace),
			cmp.Compare(a.Name, b.Name), cmp.Compare(a.Rule, b.Rule), cmp.Compare(a.Message, b.Message),
			cmp.Compare(a.APIVersion, b.APIVersion))
	})
}

// Fails reports whether findings hold a new one at or above failOn
// (error, warning; never fails on nothing).
func Fails(findings []Finding, failOn string) bool {
	if failOn == "never" {
		return false
	}
	for _, f := range findings {
		if !f.Preexisting && rank(f.Severity) <= rank(failOn) && f.Severity != SeverityInfo {
			return true
		}
	}
	return false
}

// Apply sets each finding's severity from overrides (rule id to severity)
// and drops the findings of rules set to off.
func Apply(findings []Finding, overrides map[string]string) []Finding {
	if len(overrides) == 0 {
		return findings
	}
	out := findings[:0]
	for _, f := range findings {
		if s, ok := overrides[f.Rule]; ok {
			if s == SeverityOff {
				continue
			}
			f.Severity = s
		}
		out = append(out, f)
	}
	return out
}
