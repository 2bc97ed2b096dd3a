package syncready

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Schema is what the schema rules keep of a rendered object: the issues
// its built-in kind's schema finds (decided once, where the object is
// parsed, so the body need not outlive the render), or, for a kind with
// no built-in schema, the body itself, which the env's CRDs judge once
// every app of the env is rendered.
type Schema struct {
	Builtin bool
	// Issues are the built-in schema's findings, and any key the
	// document repeated (see RepeatIssue).
	Issues []FieldIssue
	Body   map[string]any
	// CRD is the definition the object is, if it is one.
	CRD *CRD
}

// NewSchema checks body (a rendered object) against its built-in kind's
// schema; source is where the app rendered it (a template path), named in
// the messages of a CRD's resources.
func NewSchema(body map[string]any, source string) Schema {
	var s Schema
	s.Issues, s.Builtin = BuiltinIssues(body)
	if !s.Builtin {
		s.Body = body
	}
	if c, ok := ReadCRD(body, source); ok {
		s.CRD = &c
	}
	return s
}

// schemaSource names the built-in schema in messages.
func schemaSource() string {
	return fmt.Sprintf("schema of Kubernetes %s, client-go %s", newestKube(), APIModuleVersion)
}

// schemaFindings judges each object of e: built-in kinds by their issues,
// custom resources by a CRD of the env (rendered by one of its apps, else
// found in the repository); a kind with neither is one
// schema-unknown-kind per env, never valid.
func schemaFindings(e Env) []Finding {
	crds := map[string]CRD{}
	for _, a := range e.Apps {
		for _, o := range a.Objects {
			if c := o.Schema.CRD; c != nil {
				if _, seen := crds[c.Group+"/"+c.Kind]; !seen {
					cc := *c
					cc.Source = "app " + a.Name + where(c.Source)
					crds[c.Group+"/"+c.Kind] = cc
				}
			}
		}
	}
	for _, c := range e.CRDs {
		if _, seen := crds[c.Group+"/"+c.Kind]; !seen {
			crds[c.Group+"/"+c.Kind] = c
		}
	}
	var out []Finding
	unknown := map[string][]string{}
	var kinds []string
	for _, a := range e.Apps {
		for _, o := range a.Objects {
			for _, is := range o.Schema.Issues {
				msg := is.describe()
				if is.Rule != RuleSchemaDuplicateField {
					msg += " (" + schemaSource() + ")"
				}
				out = append(out, finding(is.Rule, e.Name, a, o, msg))
			}
			switch {
			case o.Schema.Builtin:
			case o.Schema.Body != nil && o.Kind != "":
				gv, _ := schema.ParseGroupVersion(o.APIVersion)
				if c, ok := crds[gv.Group+"/"+o.Kind]; ok {
					if issues, served := CRDIssues(c, gv.Version, o.Schema.Body); served {
						for _, is := range issues {
							out = append(out, finding(is.Rule, e.Name, a, o, is.describe()+" ("+c.describe()+")"))
						}
						continue
					}
				}
				if lookup(gv.WithKind(o.Kind)).groupKnown {
					continue // a built-in group's version Kubernetes no longer serves: the api-* rules judge it
				}
				k := o.APIVersion + " " + o.Kind
				if unknown[k] == nil {
					kinds = append(kinds, k)
				}
				if !containsStr(unknown[k], a.Name) {
					unknown[k] = append(unknown[k], a.Name)
				}
			}
		}
	}
	for _, k := range kinds {
		apiVersion, kind, _ := strings.Cut(k, " ")
		f := Finding{Rule: RuleSchemaUnknownKind, Severity: SeverityInfo, Env: e.Name, APIVersion: apiVersion, Kind: kind,
			Message: fmt.Sprintf("no schema for %s %s in env %s: not a Kubernetes %s kind, and no CRD serves it among the env's rendered objects "+
				"or the repository's files with \"crd\" in their path; its fields were not checked (rendered by %s)",
				apiVersion, kind, e.Name, newestKube(), apps(unknown[k]))}
		out = append(out, f)
	}
	return out
}

func where(source string) string {
	if source == "" {
		return ""
	}
	return " (" + source + ")"
}

func apps(names []string) string {
	if len(names) > 3 {
		return fmt.Sprintf("%s and %d other apps", strings.Join(names[:3], ", "), len(names)-3)
	}
	return strings.Join(names, ", ")
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
