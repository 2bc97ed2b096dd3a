package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Every refusal: exit 1, one line naming the problem (and the way past it),
// and nothing written: HEAD, work tree and remote as they were.
func TestRefusalsWriteNothing(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, f *fleet)
		args  []string
		want  []string
	}{
		{"out of order", nil, []string{"apply", "--from", "qa", "--to", "prod", "--push"},
			[]string{"qa -> prod: prod is promoted from preprod", "--force-path"}},
		{"unknown env", nil, []string{"apply", "--from", "qa", "--to", "staging"},
			[]string{`--to: unknown environment "staging" (configured: qa, preprod, prod)`}},
		{"unknown only", nil, []string{"apply", "--from", "qa", "--to", "preprod", "--only", "ledger-node.api,nope"},
			[]string{"--only names unknown components nope"}},
		{"downgrade", func(t *testing.T, f *fleet) {
			f.commitFile(t, "versions/qa.yaml", strings.Replace(f.read(t, "versions/qa.yaml"), `"1.4.0"`, `"1.3.0"`, 1), "roll api back")
		}, []string{"apply", "--from", "qa", "--to", "preprod"},
			[]string{"ledger-node.api.chartVersion would go from 1.3.1 down to 1.3.0", "--allow-downgrade"}},
		{"floating tag", func(t *testing.T, f *fleet) {
			f.commitFile(t, "versions/qa.yaml", strings.Replace(f.read(t, "versions/qa.yaml"), `"v3.2.0"`, `latest`, 1), "float")
		}, []string{"apply", "--from", "qa", "--to", "preprod"},
			[]string{"versions/qa.yaml:5: ledger-node.api.imageTag", `"latest" is a floating tag`}},
		{"range", func(t *testing.T, f *fleet) {
			f.commitFile(t, "versions/qa.yaml", strings.Replace(f.read(t, "versions/qa.yaml"), `0.9.2`, `^0.9`, 1), "range")
		}, []string{"apply", "--from", "qa", "--to", "preprod"},
			[]string{"ledger-node.worker.chartVersion", `"^0.9" is not an exact semantic version`}},
		{"key missing in target", func(t *testing.T, f *fleet) {
			f.commitFile(t, "versions/qa.yaml", strings.Replace(f.read(t, "versions/qa.yaml"), "    replicas: 2", "    replicas: 2\n    profile: fast", 1), "new key")
		}, []string{"apply", "--from", "qa", "--to", "preprod"},
			[]string{"missing: ledger-node.worker.profile (absent from versions/preprod.yaml)"}},
		{"dirty target file", func(t *testing.T, f *fleet) {
			os.WriteFile(filepath.Join(f.Dir, "versions/preprod.yaml"), []byte(f.read(t, "versions/preprod.yaml")+"# wip\n"), 0o644)
		}, []string{"apply", "--from", "qa", "--to", "preprod"},
			[]string{"versions/preprod.yaml: uncommitted changes in files the plan edits", "commit or stash them first"}},
		{"chart version not published", func(t *testing.T, f *fleet) {
			f.commitFile(t, "versions/qa.yaml", strings.Replace(f.read(t, "versions/qa.yaml"), `"1.4.0"`, `"1.5.0"`, 1), "unpublished")
		}, []string{"apply", "--from", "qa", "--to", "preprod"},
			[]string{"ledger-api", "1.5.0", "--skip-chart-check"}},
		{"versions file does not parse", func(t *testing.T, f *fleet) {
			f.commitFile(t, "versions/qa.yaml", "ledger-node: [\n", "broken")
		}, []string{"apply", "--from", "qa", "--to", "preprod"},
			[]string{"reading versions/qa.yaml", "versions file does not parse"}},
		{"bad config", func(t *testing.T, f *fleet) {
			f.commitFile(t, ".promote.yaml", f.read(t, ".promote.yaml")+"colour: blue\n", "typo")
		}, []string{"plan", "--from", "qa", "--to", "preprod"},
			[]string{`.promote.yaml:`, `unknown key "colour" (known keys: repoURL,`}},
		{"config key typo", func(t *testing.T, f *fleet) {
			f.commitFile(t, ".promote.yaml", strings.Replace(f.read(t, ".promote.yaml"), "versions:", "version:", 1), "typo")
		}, []string{"plan", "--from", "qa", "--to", "preprod"},
			[]string{`unknown key "version" (did you mean versions?)`}},
		{"same env", nil, []string{"plan", "--from", "qa", "--to", "qa"},
			[]string{"cannot promote qa into itself: --from and --to name the same environment"}},
		{"pin field typo", nil, []string{"pin", "--env", "qa", "ledger-node.api.imageTg=v1"},
			[]string{"ledger-node.api.imageTg: versions/qa.yaml has no field imageTg (did you mean ledger-node.api.imageTag?)"}},
		{"pin unpinned", nil, []string{"pin", "--env", "qa", "ledger-node.api.imageTag=latest"},
			[]string{"ledger-node.api.imageTag: imageTag \"latest\" is a floating tag"}},
		{"pin unknown key", nil, []string{"pin", "--env", "qa", "ledger-node.db.imageTag=v1"},
			[]string{"ledger-node.db.imageTag is not a field of a configured component"}},
		{"pin absent field", nil, []string{"pin", "--env", "qa", "gateway.digest=sha256:" + strings.Repeat("a", 64)},
			[]string{"gateway.digest: versions/qa.yaml has no field digest"}},
		{"pin downgrade", nil, []string{"pin", "--env", "qa", "ledger-node.worker.chartVersion=0.9.0"},
			[]string{"would go from 0.9.2 down to 0.9.0", "--allow-downgrade"}},
		{"token flag", nil, []string{"apply", "--from", "qa", "--to", "preprod", "--token", "s3cret"},
			[]string{"unknown flag --token; see 'promote apply --help'"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFleet(t)
			if tt.setup != nil {
				tt.setup(t, f)
			}
			before := f.snapshot(t)
			r := f.run(t, nil, tt.args...)
			if r.code != 1 {
				t.Fatalf("exit %d, want 1\nstdout: %s\nstderr: %s", r.code, r.out, r.errOut)
			}
			first := strings.SplitN(r.errOut, "\n", 2)[0]
			if !strings.HasPrefix(first, "promote: ") {
				t.Errorf("stderr does not start with a one-line error: %q", r.errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(first, w) {
					t.Errorf("error line %q does not contain %q", first, w)
				}
			}
			if tt.name == "same env" && strings.Contains(first, "--force-path") {
				t.Errorf("the hint names a flag that does not get past the error: %q", first)
			}
			if after := f.snapshot(t); after != before {
				t.Errorf("something was written:\nbefore %+v\nafter  %+v", before, after)
			}
			if r.out != "" {
				t.Errorf("a refused command printed results: %q", r.out)
			}
			if tt.args[0] != "apply" || tt.name == "chart version not published" || tt.name == "token flag" {
				return // plan makes no network calls (no chart look-up) and has its own help path
			}
			// plan predicts apply: the same refusal, word for word.
			planArgs := append([]string{"plan"}, slices.DeleteFunc(slices.Clone(tt.args[1:]), func(a string) bool { return a == "--push" })...)
			p := f.run(t, nil, planArgs...)
			if p.code != 1 || strings.SplitN(p.errOut, "\n", 2)[0] != first || p.out != "" {
				t.Errorf("%v: exit %d, stdout %q, stderr %q; want apply's refusal %q", planArgs, p.code, p.out, p.errOut, first)
			}
		})
	}
}

// The dirty check runs while the chart check waits on the repository; a
// missing chart is still the one refusal said, as when the dirty check
// came after it: no word about uncommitted files, refused or warned.
func TestChartRefusalComesFirstAndAlone(t *testing.T) {
	f := newFleet(t)
	f.commitFile(t, "versions/qa.yaml", strings.Replace(f.read(t, "versions/qa.yaml"), `"1.4.0"`, `"1.5.0"`, 1), "unpublished")
	for _, p := range []string{"versions/preprod.yaml", "versions/qa.yaml"} { // edited by the plan; warned about
		os.WriteFile(filepath.Join(f.Dir, p), []byte(f.read(t, p)+"# wip\n"), 0o644)
	}
	before := f.snapshot(t)
	r := f.run(t, nil, "apply", "--from", "qa", "--to", "preprod")
	if r.code != 1 || !strings.Contains(r.errOut, "1.5.0") || strings.Contains(r.errOut, "uncommitted") {
		t.Errorf("exit %d, stderr %q; want the chart refusal alone", r.code, r.errOut)
	}
	if after := f.snapshot(t); after != before {
		t.Errorf("something was written:\nbefore %+v\nafter  %+v", before, after)
	}
	// Without the chart check, the same run refuses the dirty file.
	r = f.run(t, nil, "apply", "--from", "qa", "--to", "preprod", "--skip-chart-check")
	if r.code != 1 || !strings.Contains(r.errOut, "versions/preprod.yaml: uncommitted changes") || !strings.Contains(r.errOut, "has uncommitted changes, which are not promoted") {
		t.Errorf("--skip-chart-check: exit %d, stderr %q; want the dirty refusal and the warning", r.code, r.errOut)
	}
}

func TestUnrelatedDirtIsLeftAlone(t *testing.T) {
	f := newFleet(t)
	p := filepath.Join(f.Dir, "envs/qa/common.yaml")
	os.WriteFile(p, []byte(f.read(t, "envs/qa/common.yaml")+"# local experiment\n"), 0o644)
	r := f.run(t, nil, "apply", "--from", "qa", "--to", "preprod")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.errOut)
	}
	if st := gitRun(t, f.Dir, "status", "--porcelain"); st != "M envs/qa/common.yaml" {
		t.Errorf("status = %q, want only the unrelated edit", st)
	}
	if files := gitRun(t, f.Dir, "show", "--name-only", "--format=", "HEAD"); strings.Contains(files, "envs/qa") {
		t.Errorf("the commit took the unrelated file: %s", files)
	}
}

func TestTemplatedRevisionIsReportedNotOverwritten(t *testing.T) {
	f := newFleet(t)
	path := "argocd/preprod/appset-nodes.yaml"
	f.commitFile(t, path, strings.Replace(f.read(t, path), `targetRevision: "1.3.1"`, `targetRevision: '{{ .values.apiChart }}'`, 1), "template it")
	r := f.run(t, nil, "apply", "--from", "qa", "--to", "preprod")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.errOut)
	}
	if !strings.Contains(r.out, "templated targetRevision") {
		t.Errorf("no note about the templated revision:\n%s", r.out)
	}
	if !strings.Contains(f.read(t, path), `targetRevision: '{{ .values.apiChart }}'`) {
		t.Errorf("templated revision overwritten")
	}
	c := f.run(t, nil, "check", "--env", "preprod")
	if c.code != 1 || !strings.Contains(c.out, "[templated-revision]") {
		t.Errorf("check: exit %d\n%s", c.code, c.out)
	}
}
