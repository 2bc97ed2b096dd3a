package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/gitops-promote/gitops-promote/internal/diff"
	"github.com/gitops-promote/gitops-promote/internal/syncready"
)

// jsonReport is the document JSON writes.
type jsonReport struct {
	Base     string              `json:"base"`
	Head     string              `json:"head"`
	Shard    *Shard              `json:"shard,omitempty"`
	Pending  []string            `json:"pendingSettings,omitempty"`
	Findings []syncready.Finding `json:"findings,omitempty"`
	LiveEnvs []jsonLiveEnv       `json:"liveEnvs,omitempty"`
	Apps     []jsonApp           `json:"apps"`
	Summary  Summary             `json:"summary"`
}

type jsonApp struct {
	Env  string `json:"env"`
	Name string `json:"name"`
	// Namespace is written in a shard's report only, for Merge (the
	// grouping of shared changes masks it).
	Namespace   string         `json:"namespace,omitempty"`
	Status      string         `json:"status"`
	Error       string         `json:"error,omitempty"`
	NotRendered string         `json:"notRendered,omitempty"`
	Warnings    []string       `json:"warnings,omitempty"`
	Moves       []jsonMove     `json:"moves,omitempty"`
	Resources   []jsonResource `json:"resources"`
	Live        *jsonLive      `json:"live,omitempty"`
}

type jsonResource struct {
	APIVersion string          `json:"apiVersion"`
	Kind       string          `json:"kind"`
	Namespace  string          `json:"namespace"`
	Name       string          `json:"name"`
	Status     string          `json:"status"`
	Diff       string          `json:"diff"`
	Generated  []string        `json:"generated,omitempty"`
	SecretKeys []jsonSecretKey `json:"secretKeys,omitempty"`

	// GenerateName marks an object the API server names at sync.
	GenerateName string `json:"generateName,omitempty"`
}

type jsonSecretKey struct {
	Key    string `json:"key"`
	Status string `json:"status"`
}

func toJSONResource(res diff.ResourceDiff) jsonResource {
	jr := jsonResource{
		APIVersion: res.APIVersion, Kind: res.Kind, Namespace: res.Namespace, Name: res.Name,
		GenerateName: res.GenerateName, Status: string(res.Status), Diff: res.Diff, Generated: res.Generated,
	}
	for _, k := range res.SecretKeys {
		jr.SecretKeys = append(jr.SecretKeys, jsonSecretKey{Key: k.Key, Status: k.Status})
	}
	return jr
}

// JSON writes the report as one indented JSON document:
//
//	{
//	  "base": "<rev>", "head": "<rev>",
//	  "pendingSettings": ["repoURL", ...] (only when the head revision changes a trusted setting),
//	  "findings": [{"rule": "...", "severity": "error|warning|info", "env": "...", "app": "...",
//	    "apiVersion": "...", "kind": "...", "namespace": "...", "name": "...", "message": "...",
//	    "preexisting": true (only when the base revision had it)}] (only when there are any; see syncready),
//	  "apps": [{
//	    "env": "...", "name": "...", "status": "added|removed|changed|unchanged|error",
//	    "error": "... (status error only)", "notRendered": "... (if skipped)",
//	    "warnings": ["Argo CD's warning", ...] (if any),
//	    "moves": [{"component": "dlt-node.backend", "field": "chartVersion|imageTag|targetRevision|...", "old": "...", "new": "..."}] (pinned versions the head moves for the app, if any),
//	    "resources": [{
//	      "apiVersion": "...", "kind": "...", "namespace": "...", "name": "...",
//	      "status": "added|removed|changed", "diff": "<unified hunks>",
//	      "generated": ["field.path", ...], "secretKeys": [{"key": "data.x", "status": "..."}],
//	      "generateName": "... (an object the API server names at sync; name is then a stand-in)"
//	    }]
//	  }],
//	  "summary": {see Summary}
//	}
//
// A shard's report (Report.Shard set) also has "shard" and each app's
// "namespace": what Merge needs to rebuild the whole report.
//
// With --live, "liveEnvs" lists each compared env's cluster and every app
// of those envs has "live" (see jsonLive).
//
// Apps come in environment order (first appearance), then by name; unchanged
// resources are left out, so unchanged apps have "resources": [].
//
// The apps are encoded one at a time into the document's layout (what
// an indenting json.Encoder writes for the whole document, byte for
// byte), so that a report of 12,000 apps is not first built again as one
// value and one buffer.
func JSON(w io.Writer, r Report) error {
	j := &jsonWriter{w: w}
	j.raw("{\n")
	j.field("base", r.Base, true)
	j.field("head", r.Head, true)
	if r.Shard != nil {
		j.field("shard", r.Shard, true)
	}
	if len(r.PendingSettings) > 0 {
		j.field("pendingSettings", r.PendingSettings, true)
	}
	if len(r.Findings) > 0 {
		j.field("findings", r.Findings, true)
	}
	if live := toJSONLiveEnvs(r.LiveEnvs); len(live) > 0 {
		j.field("liveEnvs", live, true)
	}
	if len(r.Apps) == 0 {
		j.raw(`  "apps": [],` + "\n")
	} else {
		j.raw(`  "apps": [` + "\n")
		n := 0
		for _, g := range r.ordered() {
			for _, a := range g.Apps {
				if n++; n > 1 {
					j.raw(",\n")
				}
				j.raw("    ")
				j.value("    ", toJSONApp(a, r.Shard != nil))
			}
		}
		j.raw("\n  ],\n")
	}
	j.field("summary", r.Summary(), false)
	j.raw("}\n")
	if j.err != nil {
		return fmt.Errorf("write json report: %w", j.err)
	}
	return nil
}

func toJSONApp(a App, shard bool) jsonApp {
	ja := jsonApp{Env: a.Env, Name: a.Name, Status: a.Status, Error: a.Error, NotRendered: a.NotRendered, Warnings: a.Warnings, Moves: toJSONMoves(a.Moves), Resources: []jsonResource{}}
	if shard {
		ja.Namespace = a.Namespace
	}
	for _, res := range changedResources(a) {
		ja.Resources = append(ja.Resources, toJSONResource(res))
	}
	ja.Live = toJSONLive(a.Live)
	return ja
}

// jsonWriter writes a document piece by piece; the first error stops it.
type jsonWriter struct {
	w   io.Writer
	buf bytes.Buffer
	err error
}

func (j *jsonWriter) raw(s string) {
	if j.err == nil {
		_, j.err = io.WriteString(j.w, s)
	}
}

// field writes one member of the top-level object.
func (j *jsonWriter) field(name string, v any, more bool) {
	j.raw("  \"" + name + "\": ")
	j.value("  ", v)
	if more {
		j.raw(",")
	}
	j.raw("\n")
}

// value writes v indented as it stands at prefix's depth, without the
// encoder's trailing newline. Placeholders like <redacted> stay readable.
func (j *jsonWriter) value(prefix string, v any) {
	if j.err != nil {
		return
	}
	j.buf.Reset()
	enc := json.NewEncoder(&j.buf)
	enc.SetIndent(prefix, "  ")
	enc.SetEscapeHTML(false)
	if j.err = enc.Encode(v); j.err == nil {
		_, j.err = j.w.Write(bytes.TrimSuffix(j.buf.Bytes(), []byte("\n")))
	}
}
