package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gitops-promote/gitops-promote/internal/diff"
)

// A shard's JSON reads back to the report it was written from, and the
// shards of a report merge back to it.
func TestShardRoundTripAndMerge(t *testing.T) {
	res := []diff.ResourceDiff{{APIVersion: "v1", Kind: "Secret", Namespace: "ns-a", Name: "s", Status: diff.Changed,
		Diff: "@@ -1 +1 @@\n-a\n+b\n", Generated: []string{"data.token"}, SecretKeys: []diff.SecretKeyChange{{Key: "data.pw", Status: "changed"}}}}
	whole := Report{Base: "b", Head: "h", Apps: []App{
		{Env: "qa", Name: "a", Namespace: "ns-a", Status: StatusChanged, Resources: res},
		{Env: "qa", Name: "b", Namespace: "ns-b", Status: StatusError, Error: "env qa, app b: boom"},
		{Env: "prod", Name: "a", Namespace: "ns-a", Status: StatusUnchanged, NotRendered: "plugin source x not rendered"},
		{Env: "prod", Name: "c", Namespace: "ns-c", Status: StatusAdded, Resources: res},
	}}
	envs := []string{"qa", "prod"}
	var shards []Report
	for i, apps := range [][]App{{whole.Apps[1], whole.Apps[2]}, {whole.Apps[0], whole.Apps[3]}} {
		s := Report{Base: "b", Head: "h", Apps: apps, Shard: &Shard{Index: i + 1, Total: 2, Envs: envs}}
		var buf bytes.Buffer
		if err := JSON(&buf, s); err != nil {
			t.Fatal(err)
		}
		back, err := ReadShard(&buf, "shard.json")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(s, back); diff != "" {
			t.Errorf("shard %d read back differs (-written +read):\n%s", i+1, diff)
		}
		shards = append(shards, back)
	}
	got, err := Merge([]Report{shards[1], shards[0]})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(whole, got); diff != "" {
		t.Errorf("merged (-whole +merged):\n%s", diff)
	}
	var plain bytes.Buffer
	if err := JSON(&plain, whole); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Shard any              `json:"shard"`
		Apps  []map[string]any `json:"apps"`
	}
	if err := json.Unmarshal(plain.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Shard != nil || doc.Apps[0]["namespace"] != nil {
		t.Errorf("an unsharded JSON report has shard fields:\n%s", plain.String())
	}

	other := shards[1]
	other.Head = "h2"
	twice := shards[1]
	twice.Shard = &Shard{Index: 1, Total: 2, Envs: envs}
	for name, in := range map[string][]Report{
		"other revisions": {shards[0], other},
		"app twice":       {shards[0], {Base: "b", Head: "h", Apps: shards[0].Apps[:1], Shard: &Shard{Index: 2, Total: 2, Envs: envs}}},
		"other total":     {shards[0], {Base: "b", Head: "h", Shard: &Shard{Index: 2, Total: 3, Envs: envs}}},
		"env not in run":  {shards[0], {Base: "b", Head: "h", Apps: []App{{Env: "dev", Name: "x"}}, Shard: &Shard{Index: 2, Total: 2, Envs: envs}}},
		"none":            nil,
	} {
		if _, err := Merge(in); !errors.Is(err, ErrShards) {
			t.Errorf("%s: err %v, want ErrShards", name, err)
		}
	}
}
