package main

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// TestDuplicateKeysRefused is issue 9's fourth item: a duplicate mapping
// key in any file a promotion reads or edits is an error naming file and
// line, before anything is written; no flag overrides it (not
// --ignore-ordering, which used to commit an edit of the first key while
// readers take the second), and check reports it as a finding of its own.
func TestDuplicateKeysRefused(t *testing.T) {
	tests := []struct {
		name, file, old, new string
		args                 []string
		want                 string // file:line and key
		checkEnv             string // env whose check reports it; "" when check cannot load the config
	}{
		{"targetRevision twice in a promoted manifest", "argocd/preprod/app-gateway.yaml",
			"      targetRevision: '2.0.3'", "      targetRevision: '2.0.3'\n      targetRevision: '2.0.2'",
			[]string{"apply", "--from", "qa", "--to", "preprod"},
			`argocd/preprod/app-gateway.yaml:14: key "targetRevision" is already defined at line 13`, "preprod"},
		{"same, with only an image moving", "argocd/preprod/app-gateway.yaml",
			"      targetRevision: '2.0.3'", "      targetRevision: '2.0.3'\n      targetRevision: '2.0.2'",
			[]string{"apply", "--from", "qa", "--to", "preprod", "--only", "ledger-node.worker"},
			`argocd/preprod/app-gateway.yaml:14: key "targetRevision" is already defined at line 13`, "preprod"},
		{"in another environment's manifest, read for the ordering rules", "argocd/prod/app-gateway.yaml",
			`    argocd.argoproj.io/sync-wave: "0"`, `    argocd.argoproj.io/sync-wave: "0"` + "\n" + `    argocd.argoproj.io/sync-wave: "5"`,
			[]string{"apply", "--from", "qa", "--to", "preprod"},
			`argocd/prod/app-gateway.yaml:8: key "argocd.argoproj.io/sync-wave" is already defined at line 7`, "prod"},
		{"target versions file", "versions/preprod.yaml",
			`    imageTag: "v3.1.4"     # hotfix for LEDGER-812`, `    imageTag: "v3.1.4"     # hotfix for LEDGER-812` + "\n    imageTag: v3.1.3",
			[]string{"apply", "--from", "qa", "--to", "preprod"},
			`versions/preprod.yaml:6: key "imageTag" is already defined at line 5`, "preprod"},
		{"source versions file", "versions/qa.yaml",
			`    imageTag: "v3.2.0"`, `    imageTag: "v3.2.0"` + "\n    imageTag: v3.1.0",
			[]string{"apply", "--from", "qa", "--to", "preprod"},
			`versions/qa.yaml:6: key "imageTag" is already defined at line 5`, "qa"},
		{"pinned versions file", "versions/qa.yaml",
			`    imageTag: "v3.2.0"`, `    imageTag: "v3.2.0"` + "\n    imageTag: v3.1.0",
			[]string{"pin", "--env", "qa", "ledger-node.api.imageTag=v3.3.0"},
			`versions/qa.yaml:6: key "imageTag" is already defined at line 5`, "qa"},
		{".promote.yaml", ".promote.yaml",
			"versions: versions/{env}.yaml", "versions: versions/{env}.yaml\nversions: versions/{env}.yml",
			[]string{"apply", "--from", "qa", "--to", "preprod"},
			`line 5: mapping key "versions" already defined at line 4`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFleet(t)
			content := f.read(t, tt.file)
			if !strings.Contains(content, tt.old) {
				t.Fatalf("%s lacks %q", tt.file, tt.old)
			}
			f.commitFile(t, tt.file, strings.Replace(content, tt.old, tt.new, 1), "a duplicate key")
			before := f.snapshot(t)
			for _, extra := range [][]string{nil, {"--ignore-ordering"}} {
				args := tt.args
				if extra != nil && tt.args[0] == "pin" {
					continue
				}
				r := f.run(t, nil, append(append(args, "--skip-chart-check"), extra...)...)
				if r.code != 1 || !strings.Contains(r.errOut, tt.want) {
					t.Errorf("%v: exit %d, want 1 and %q\nstdout: %s\nstderr: %s", extra, r.code, tt.want, r.out, r.errOut)
				}
				if strings.Contains(r.errOut, "--ignore-ordering") {
					t.Errorf("%v: a duplicate key is not an ordering finding: %s", extra, r.errOut)
				}
				if after := f.snapshot(t); after != before {
					t.Errorf("%v: something was written: %+v -> %+v", extra, before, after)
				}
			}
			if tt.checkEnv == "" {
				return
			}
			r := f.run(t, nil, "check", "--env", tt.checkEnv, "--output", "json")
			var out struct {
				Findings []struct {
					Rule, File string
					Line       int
				}
			}
			if err := json.Unmarshal([]byte(r.out), &out); err != nil || r.code != 1 {
				t.Fatalf("check: exit %d, %v\n%s%s", r.code, err, r.out, r.errOut)
			}
			file, line, _ := strings.Cut(strings.TrimSuffix(strings.Fields(tt.want)[0], ":"), ":")
			found := 0
			for _, fd := range out.Findings {
				if fd.Rule == "duplicate-key" && fd.File == file && line == strconv.Itoa(fd.Line) {
					found++
				}
			}
			if found != 1 {
				t.Errorf("check: want one duplicate-key finding at %s:%s, got %+v", file, line, out.Findings)
			}
		})
	}
}
