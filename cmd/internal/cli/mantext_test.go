package cli

import "testing"

func TestEscapeMarkdown(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"reported as argocd/<app> commit statuses", `reported as argocd/\<app\> commit statuses`},
		{"from versions/*.yaml, argocd/{env}/*.yaml", `from versions/\*.yaml, argocd/{env}/\*.yaml`},
		{"for `go version -m` to read; a_b & [x](y) \\n", "for \\`go version -m\\` to read; a\\_b \\& \\[x\\](y) \\\\n"},
		// indented code after a blank line is literal in markdown: unchanged
		{"load it:\n\n\tsource <(promote completion bash)\n\n    x_<y>\nback to <prose>",
			"load it:\n\n\tsource <(promote completion bash)\n\n    x_<y>\nback to \\<prose\\>"},
		// an indented line inside a paragraph is prose
		{"one <a>\n    two <b>", "one \\<a\\>\n    two \\<b\\>"},
		{"plain text, nothing to do", "plain text, nothing to do"},
	} {
		if got := escapeMarkdown(tc.in); got != tc.want {
			t.Errorf("escapeMarkdown(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}
