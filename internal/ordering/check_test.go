package ordering

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/gitops-promote/gitops-promote/internal/argo"
)

// edit replaces old with new in one fixture file; new == deleteFile
// removes the file instead.
type edit struct{ file, old, new string }

const deleteFile = "\x00delete"

func applyEdits(t *testing.T, m fstest.MapFS, edits []edit) {
	t.Helper()
	for _, e := range edits {
		f, ok := m[e.file]
		if !ok {
			t.Fatalf("fixture has no %s", e.file)
		}
		if e.new == deleteFile {
			delete(m, e.file)
			continue
		}
		if !strings.Contains(string(f.Data), e.old) {
			t.Fatalf("%s does not contain %q", e.file, e.old)
		}
		f.Data = []byte(strings.Replace(string(f.Data), e.old, e.new, 1))
	}
}

// brief renders findings as "rule env app" for exact comparison.
func brief(fs []Finding) []string {
	out := []string{}
	for _, f := range fs {
		out = append(out, f.Rule+" "+f.Env+" "+f.App)
	}
	return out
}

func TestCleanRepo(t *testing.T) {
	m, cfg, ocfg := loadRepo(t, "testdata/repo")
	if got := Check(build(t, m, cfg), ocfg); len(got) != 0 {
		t.Errorf("clean fixture has findings:\n%v", got)
	}
}

const (
	prodKeys    = "argocd/prod/appset-keys.yaml"
	prodShared  = "argocd/prod/app-shared.yaml"
	prodArchive = "argocd/prod/app-archive.yaml"
	prodAPI     = "argocd/prod/appset-api.yaml"
	prodWeb     = "argocd/prod/appset-web.yaml"
	prodNS      = "argocd/prod/appset-ns.yaml"
	prodRoot    = "argocd/prod/app-root.yaml"
	archiveWave = `argocd.argoproj.io/sync-wave: "-2"`
	webWave     = `argocd.argoproj.io/sync-wave: "3"`
	templSync   = "        syncOptions: [CreateNamespace=false]"
	notInStep   = "operator: NotIn, values: [node-a]}"
)

type defectCase struct {
	name    string
	edits   []edit
	ignore  []string // ordering.parityIgnore
	want    []string // brief(findings)
	message string   // substring of the first finding's message
}

var defectCases = []defectCase{
	{name: "later-wave dependency",
		edits: []edit{{prodKeys, `"ledger-shared-prod"`, `"ledger-shared-prod, ledger-web-prod"`}},
		want:  []string{"depends-on-order prod ledger-keys-prod"}, message: "depends on ledger-web-prod (wave 3), which must be in a wave earlier than 1"},
	{name: "dependency on a missing app",
		edits: []edit{{prodShared, "ledger-ns-prod", "ledger-gone-prod"}},
		want:  []string{"depends-on-order prod ledger-shared-prod"}, message: "ledger-gone-prod, which is no Application"},
	{name: "dependency by base name resolves",
		edits: []edit{{prodShared, "ledger-archive-prod,", "ledger-archive,"}}, want: []string{}},
	{name: "cycle",
		edits:   []edit{{prodArchive, archiveWave, archiveWave + "\n    gitops-promote/depends-on: ledger-shared-prod"}},
		want:    []string{"depends-on-cycle prod ledger-archive-prod", "depends-on-order prod ledger-archive-prod"},
		message: "dependency cycle ledger-archive-prod -> ledger-shared-prod -> ledger-archive-prod"},
	{name: "templated dependency on a later wave",
		edits:   []edit{{prodAPI, "ledger-{{path.basename}}-keys-prod", "ledger-{{path.basename}}-web-prod"}},
		want:    []string{"depends-on-order prod ledger-node-a-api-prod", "depends-on-order prod ledger-node-b-api-prod"},
		message: "depends on ledger-node-a-web-prod (wave 3)"},
	{name: "app missing in one env",
		edits: []edit{{prodWeb, "", deleteFile}},
		want:  []string{"env-parity prod ledger-web"}, message: "ApplicationSet ledger-web exists in qa (argocd/qa/appset-web.yaml) but not in prod"},
	{name: "app missing but parity-ignored",
		edits: []edit{{prodWeb, "", deleteFile}}, ignore: []string{"ledger-web"}, want: []string{}},
	{name: "wave differs between envs",
		edits: []edit{{prodWeb, webWave, `argocd.argoproj.io/sync-wave: "4"`}},
		want:  []string{"env-parity prod ledger-web-prod"}, message: "is in wave 4 here but in wave 3 in qa"},
	{name: "auto-synced prod application",
		edits: []edit{{prodArchive, "    syncOptions: [CreateNamespace=true]", "    automated: {}"}},
		want:  []string{"manual-sync prod ledger-archive-prod"}, message: "env prod is listed in ordering.manualSync"},
	{name: "auto-synced prod applicationset template",
		edits: []edit{{prodNS, templSync, "        automated: {selfHeal: true}"}},
		want:  []string{"manual-sync prod ledger-ns-prod"}},
	{name: "automated but disabled is manual",
		edits: []edit{{prodNS, templSync, "        automated: {enabled: false}"}}, want: []string{}},
	{name: "empty RollingSync step",
		edits: []edit{{prodAPI, "        maxUpdate: 50%", "        maxUpdate: 50%\n      - matchExpressions:\n        - {key: ledger.example.org/node, operator: In, values: [node-z]}"}},
		want:  []string{"rollingsync-empty-step prod ledger-api-prod"}, message: "RollingSync step 3 (ledger.example.org/node In (node-z)) selects none of the 2 generated apps"},
	{name: "app no step selects",
		edits: []edit{{prodAPI, notInStep, "operator: In, values: [node-c]}"}},
		want:  []string{"rollingsync-empty-step prod ledger-api-prod", "rollingsync-unmatched prod ledger-node-b-api-prod"}},
	{name: "unsupported operator",
		edits:   []edit{{prodAPI, notInStep, "operator: Like, values: [node-a]}"}},
		want:    []string{"rollingsync-empty-step prod ledger-api-prod", "rollingsync-unmatched prod ledger-node-b-api-prod"},
		message: `unsupported operator "Like"`},
	{name: "invalid wave on an application",
		edits: []edit{{prodArchive, archiveWave, `argocd.argoproj.io/sync-wave: "first"`}},
		want: []string{"env-parity prod ledger-archive-prod", "wave-invalid prod ledger-archive-prod",
			"depends-on-order prod ledger-shared-prod"},
		message: "is in wave 0 here but in wave -2 in qa"},
	{name: "invalid wave in a template is reported once",
		edits: []edit{{prodWeb, webWave, `argocd.argoproj.io/sync-wave: "late"`}},
		want: []string{"depends-on-order prod ledger-web-prod", "env-parity prod ledger-web-prod",
			"wave-invalid prod ledger-web-prod"}},
	{name: "root app-of-apps is exempt",
		edits: []edit{{prodRoot, "  namespace: argocd\nspec:", "  namespace: argocd\n  annotations: {argocd.argoproj.io/sync-wave: soon}\nspec:"}},
		want:  []string{}},
}

// Each seeded defect yields exactly the findings listed, with its rule id
// and app.
func TestSeededDefects(t *testing.T) {
	for _, tc := range defectCases {
		t.Run(tc.name, func(t *testing.T) {
			m, cfg, ocfg := loadRepo(t, "testdata/repo")
			applyEdits(t, m, tc.edits)
			ocfg.ParityIgnore = tc.ignore
			got := Check(build(t, m, cfg), ocfg)
			if diff := cmp.Diff(tc.want, brief(got)); diff != "" {
				t.Fatalf("findings (-want +got):\n%s\n%v", diff, got)
			}
			if tc.message != "" && !strings.Contains(got[0].Message, tc.message) {
				t.Errorf("message %q lacks %q", got[0].Message, tc.message)
			}
			for _, f := range got {
				if f.Env != "prod" || (f.Rule != RuleEnvParity && (f.File == "" || f.Line == 0)) {
					t.Errorf("finding lacks env, file or line: %+v", f)
				}
			}
		})
	}
}

// Without an app-of-apps nothing is exempt: a lone auto-synced prod app is
// reported even though nothing renders it.
func TestNoRootWithoutAppOfApps(t *testing.T) {
	m, cfg, ocfg := loadRepo(t, "testdata/repo")
	applyEdits(t, m, []edit{{prodRoot, "", deleteFile}, {"argocd/qa/app-root.yaml", "", deleteFile},
		{prodArchive, "    syncOptions: [CreateNamespace=true]", "    automated: {}"}})
	got := brief(Check(build(t, m, cfg), ocfg))
	if diff := cmp.Diff([]string{"manual-sync prod ledger-archive-prod"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestForEnvAndString(t *testing.T) {
	fs := []Finding{
		{Rule: RuleManualSync, Env: "prod", File: "a.yaml", Line: 3, App: "x", Message: "m"},
		{Rule: RuleEnvParity, Env: "qa", App: "y", Message: "n"},
	}
	if got := ForEnv(fs, "qa"); len(got) != 1 || got[0].App != "y" {
		t.Errorf("ForEnv(qa) = %v", got)
	}
	if got, want := fs[0].String(), "prod: a.yaml:3: manual-sync: x: m"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if got, want := fs[1].String(), "qa: -: env-parity: y: n"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if !slices.Equal(brief(ForEnv(fs, "preprod")), []string{}) {
		t.Error("ForEnv(preprod) not empty")
	}
}

// CheckRepo compares every env for parity but returns only the asked
// env's findings, which is what apply refuses on.
func TestCheckRepo(t *testing.T) {
	m, cfg, ocfg := loadRepo(t, "testdata/genrepo")
	applyEdits(t, m, []edit{{"argocd/prod/app-backup.yaml", "  syncPolicy: {}", "  syncPolicy: {automated: {}}"},
		{"argocd/preprod/app-shared-services.yaml", "", deleteFile}})
	for _, tc := range []struct {
		envs []string
		want []string
	}{
		{[]string{"prod"}, []string{"manual-sync prod dlt-backup-prod"}},
		{[]string{"qa"}, []string{}},
		{nil, []string{"env-parity preprod dlt-shared-services", "manual-sync prod dlt-backup-prod"}},
	} {
		got, err := CheckRepo(m, cfg, ocfg, tc.envs...)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, brief(got)); diff != "" {
			t.Errorf("envs %v (-want +got):\n%s", tc.envs, diff)
		}
	}
	if _, err := CheckRepo(m, cfg, ocfg, "staging"); err == nil {
		t.Error("unknown env accepted")
	}
	ocfg.ManualSync = []string{"prd"}
	if _, err := CheckRepo(m, cfg, ocfg); err == nil || !strings.Contains(err.Error(), `unknown environment "prd"`) {
		t.Errorf("bad manualSync: err = %v", err)
	}
}

// TestCheckRepoDuplicateKeyElsewhere: the ordering rules read every env
// (parity), so a promotion into qa reads prod's manifests too. A repeated
// key there, even in a field no rule decodes (a source's targetRevision),
// is an error naming file:line, never a finding or a silent pass.
func TestCheckRepoDuplicateKeyElsewhere(t *testing.T) {
	m, cfg, ocfg := loadRepo(t, "testdata/genrepo")
	applyEdits(t, m, []edit{{"argocd/prod/app-backup.yaml", `    targetRevision: "0.3.0"`, "    targetRevision: \"0.3.0\"\n    targetRevision: \"0.2.0\""}})
	for _, envs := range [][]string{{"qa"}, {"prod"}, nil} {
		_, err := CheckRepo(m, cfg, ocfg, envs...)
		var de *argo.DuplicateKeyError
		if !errors.As(err, &de) || !strings.Contains(err.Error(), `argocd/prod/app-backup.yaml:15: key "targetRevision" is already defined at line 14`) {
			t.Errorf("envs %v: err = %v, want the duplicate key with file:line", envs, err)
		}
	}
}
