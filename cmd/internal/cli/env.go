package cli

import (
	"fmt"
	"strings"
)

// where each GitLab variable comes from, told to whoever lacks it. GitLab
// CI sets the CI_* ones; nobody sets GITLAB_TOKEN but the project's
// maintainers.
var envHints = map[string]string{
	"CI_API_V4_URL":        "GitLab CI sets CI_API_V4_URL in every job; on a laptop export https://<your GitLab host>/api/v4",
	"CI_PROJECT_ID":        "GitLab CI sets CI_PROJECT_ID in every job; on a laptop export the project's ID or path (group/project)",
	"CI_MERGE_REQUEST_IID": `GitLab CI sets CI_MERGE_REQUEST_IID only in merge request pipelines (rules: - if: $CI_PIPELINE_SOURCE == "merge_request_event")`,
}

// RequireEnv names every missing variable of names at once, each with a
// true hint; role is what GITLAB_TOKEN's owner must be allowed to do.
func RequireEnv(what, role string, getenv func(string) string, names ...string) error {
	var missing, hints []string
	for _, n := range names {
		if getenv(n) != "" {
			continue
		}
		missing = append(missing, n)
		if n == "GITLAB_TOKEN" {
			hints = append(hints, "GitLab does not set GITLAB_TOKEN: create a project or group access token with the api scope and "+
				role+", and store it as a masked CI/CD variable named GITLAB_TOKEN (Settings > CI/CD > Variables)")
		} else if h := envHints[n]; h != "" {
			hints = append(hints, h)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("%s needs %s in the environment: %s", what, andList(missing), strings.Join(hints, "; "))
}

func andList(s []string) string {
	if len(s) <= 1 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}
