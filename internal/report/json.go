package report

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/gitops-promote/gitops-promote/internal/diff"
)

// jsonReport is the document JSON writes.
type jsonReport struct {
	Base     string        `json:"base"`
	Head     string        `json:"head"`
	Shard    *Shard        `json:"shard,omitempty"`
	LiveEnvs []jsonLiveEnv `json:"liveEnvs,omitempty"`
	Apps     []jsonApp     `json:"apps"`
	Summary  Summary       `json:"summary"`
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
}

type jsonSecretKey struct {
	Key    string `json:"key"`
	Status string `json:"status"`
}

func toJSONResource(res diff.ResourceDiff) jsonResource {
	jr := jsonResource{
		APIVersion: res.APIVersion, Kind: res.Kind, Namespace: res.Namespace, Name: res.Name,
		Status: string(res.Status), Diff: res.Diff, Generated: res.Generated,
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
//	  "apps": [{
//	    "env": "...", "name": "...", "status": "added|removed|changed|unchanged|error",
//	    "error": "... (status error only)", "notRendered": "... (if skipped)",
//	    "resources": [{
//	      "apiVersion": "...", "kind": "...", "namespace": "...", "name": "...",
//	      "status": "added|removed|changed", "diff": "<unified hunks>",
//	      "generated": ["field.path", ...], "secretKeys": [{"key": "data.x", "status": "..."}]
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
func JSON(w io.Writer, r Report) error {
	doc := jsonReport{Base: r.Base, Head: r.Head, Shard: r.Shard, LiveEnvs: toJSONLiveEnvs(r.LiveEnvs), Apps: []jsonApp{}, Summary: r.Summary()}
	for _, g := range r.ordered() {
		for _, a := range g.Apps {
			ja := jsonApp{Env: a.Env, Name: a.Name, Status: a.Status, Error: a.Error, NotRendered: a.NotRendered, Resources: []jsonResource{}}
			if r.Shard != nil {
				ja.Namespace = a.Namespace
			}
			for _, res := range changedResources(a) {
				ja.Resources = append(ja.Resources, toJSONResource(res))
			}
			ja.Live = toJSONLive(a.Live)
			doc.Apps = append(doc.Apps, ja)
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	// Placeholders like <redacted> stay readable.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("write json report: %w", err)
	}
	return nil
}
