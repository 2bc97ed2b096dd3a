package clitest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"

	"github.com/gitops-promote/gitops-promote/cmd/internal/cli"
)

func TestDocCommands(t *testing.T) {
	root := t.TempDir()
	readme := "# x\n\nRun `promote plan --from qa --to preprod` or ``promote check --env `qa` ``; not `promote/qa-to-prod`, `promoted`.\n\n" +
		"```\n" +
		"promote apply --from SRC --to DST [--only C1,C2] [--push | --merge-request]\n" +
		"              [--output text|json]\n" +
		"promote pin   --env ENV KEY=VALUE... [--repo DIR]\n" +
		"$ promote waves -o markdown > waves.md   # a file\n" +
		"echo promote plan\n" +
		"```\n" +
		"~~~yaml\n" +
		"script:\n" +
		"  - promote pin --env qa \"a.imageTag=$IMAGE_TAG\" '' --push\n" +
		"  - promote check --env qa && echo ok\n" +
		"  ```\n" +
		"  - promote init\n" +
		"~~~\n" +
		"`promote`\n"
	os.WriteFile(filepath.Join(root, "README.md"), []byte(readme), 0o644)
	os.Mkdir(filepath.Join(root, "docs"), 0o755)
	os.WriteFile(filepath.Join(root, "docs", "a.md"), []byte("```sh\nmanifestdiff --base x\npromote waves [--env ENV]...\n```\n"), 0o644)
	got, err := DocCommands(root, "promote")
	if err != nil {
		t.Fatal(err)
	}
	want := []DocCommand{
		{File: "README.md", Line: 3, Text: "promote plan --from qa --to preprod", Args: [][]string{{"plan", "--from", "qa", "--to", "preprod"}}},
		{File: "README.md", Line: 3, Text: "promote check --env `qa`", Args: [][]string{{"check", "--env", "`qa`"}}},
		{File: "README.md", Line: 6, Text: "promote apply --from SRC --to DST [--only C1,C2] [--push | --merge-request] [--output text|json]",
			Args: [][]string{
				{"apply", "--from", "SRC", "--to", "DST", "--only", "C1,C2", "--push", "--merge-request", "--output", "text"},
				{"apply", "--from", "SRC", "--to", "DST", "--only", "C1,C2", "--push", "--merge-request", "--output", "json"},
			}},
		{File: "README.md", Line: 8, Text: "promote pin   --env ENV KEY=VALUE... [--repo DIR]",
			Args: [][]string{{"pin", "--env", "ENV", "KEY=VALUE", "--repo", "DIR"}}},
		{File: "README.md", Line: 9, Text: "promote waves -o markdown > waves.md   # a file", Args: [][]string{{"waves", "-o", "markdown"}}},
		{File: "README.md", Line: 14, Text: `promote pin --env qa "a.imageTag=$IMAGE_TAG" '' --push`,
			Args: [][]string{{"pin", "--env", "qa", "a.imageTag=$IMAGE_TAG", "", "--push"}}},
		{File: "README.md", Line: 15, Text: "promote check --env qa && echo ok", Args: [][]string{{"check", "--env", "qa"}}},
		{File: "README.md", Line: 17, Text: "promote init", Args: [][]string{{"init"}}},
		{File: "README.md", Line: 19, Text: "promote", Args: [][]string{{}}},
		{File: "docs/a.md", Line: 3, Text: "promote waves [--env ENV]...", Args: [][]string{{"waves", "--env", "ENV"}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DocCommands (-want +got):\n%s", diff)
	}
}

// checkLine rejects every kind of drift: a verb, a flag or a value that
// does not exist, a positional argument a verb does not take, and an old
// spelling.
func TestCheckLine(t *testing.T) {
	newRoot := func(ios *cli.IOStreams) *cobra.Command {
		root := &cobra.Command{Use: "tool", RunE: func(*cobra.Command, []string) error { return nil }}
		var out string
		verb := &cobra.Command{Use: "verb", RunE: func(*cobra.Command, []string) error { return nil }}
		cli.OutputFlag(verb, &out, "text", "text", "json")
		verb.Flags().String("name", "", "a `NAME`")
		verb.Flags().String("old", "", "old")
		cli.Deprecate(verb, "old", "use --name")
		root.AddCommand(verb)
		cli.Configure(root, ios)
		return root
	}
	tests := []struct {
		args []string
		want string // "" for none
	}{
		{[]string{"verb", "--name", "x", "-o", "json"}, ""},
		{[]string{"verb", "--help"}, ""},
		{[]string{}, ""},
		{[]string{"verbb"}, `unknown command "verbb" (did you mean verb?)`},
		{[]string{"verb", "--nmae", "x"}, "unknown flag --nmae (did you mean --name?)"},
		{[]string{"verb", "-o", "yaml"}, `invalid -o/--output "yaml": must be text or json`},
		{[]string{"verb", "stray"}, `verb takes no arguments, got "stray"`},
		{[]string{"verb", "--old", "x"}, "deprecated spelling: --old is deprecated: use --name"},
	}
	for _, tt := range tests {
		err := checkLine(newRoot, tt.args)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("checkLine(%q) = %v, want %q", tt.args, err, tt.want)
		}
	}
}
