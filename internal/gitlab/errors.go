package gitlab

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	gl "gitlab.com/gitlab-org/api/client-go"

	"github.com/gitops-promote/gitops-promote/internal/scrub"
)

// scopeHint says what a token needs, since the API's own 401/403 bodies do
// not tell a CI maintainer which setting to change.
const scopeHint = "the token (GITLAB_TOKEN) needs the api scope; use a project access token " +
	"with the reporter role or higher for notes, developer or higher for merge requests"

// fail turns a failed call into a one-line error naming the operation and
// what it was about; the sentinel tells callers the kind.
func (c *Client) fail(op string, t target, resp *gl.Response, err error) error {
	status := 0
	if resp != nil && resp.Response != nil {
		status = resp.StatusCode
	}
	msg := c.message(err)
	switch {
	case status == http.StatusUnauthorized:
		return fmt.Errorf("%s %s: %w (401 unauthorized: token invalid, expired or revoked); %s", op, t, ErrAuth, scopeHint)
	case status == http.StatusForbidden:
		return fmt.Errorf("%s %s: %w (403 insufficient scope or role); %s", op, t, ErrAuth, scopeHint)
	case status == http.StatusNotFound:
		return fmt.Errorf("%s %s: %w (404); check the project path or numeric id (CI_PROJECT_ID)%s "+
			"and that the token's user or bot can see the project", op, t, ErrNotFound, mrHint(t))
	case status == http.StatusConflict:
		return fmt.Errorf("%s %s: %w: %s", op, t, ErrConflict, msg)
	case status == http.StatusRequestEntityTooLarge ||
		(status == http.StatusBadRequest && strings.Contains(msg, "too long")):
		return fmt.Errorf("%s %s: %w: %s", op, t, ErrTooLarge, msg)
	case status != 0:
		return fmt.Errorf("%s %s: gitlab answered %d: %s", op, t, status, msg)
	}
	return fmt.Errorf("%s %s: %s", op, t, msg)
}

func mrHint(t target) string {
	if t.mr == 0 {
		return ""
	}
	return fmt.Sprintf(" and the merge request iid %d (CI_MERGE_REQUEST_IID)", t.mr)
}

// message is the API's explanation when there is one, else the error text,
// flattened to one line, without the token (removed before shortening, so
// no part of it survives) and shortened.
func (c *Client) message(err error) string {
	if err == nil {
		return "unknown error"
	}
	s := err.Error()
	var er *gl.ErrorResponse
	if errors.As(err, &er) {
		if m := apiMessage(er.Body); m != "" {
			s = m
		} else if er.Message != "" {
			s = er.Message
		}
	}
	s = redact(strings.Join(strings.Fields(s), " "), c.token)
	const maxLen = 300
	if len(s) > maxLen {
		s = strings.ToValidUTF8(s[:maxLen], "") + "..."
	}
	return s
}

// redact removes the token from s, in case a server or proxy echoes it:
// raw, URL-escaped and in base64 (an echoed "Authorization: Basic" of
// oauth2:TOKEN), as scrub masks every credential.
func redact(s, token string) string {
	var set scrub.Set
	set.AddCredential("", token)
	return set.Text(s)
}

// apiMessage reads GitLab's error body: {"message": "..."}, {"message":
// {"note": ["is too long ..."]}}, {"message": ["..."]} or OAuth's
// {"error": ..., "error_description": ...}.
func apiMessage(body []byte) string {
	var raw map[string]any
	if json.Unmarshal(body, &raw) != nil {
		return ""
	}
	for _, k := range []string{"message", "error_description", "error"} {
		if v, ok := raw[k]; ok {
			return flatten(v)
		}
	}
	return ""
}

func flatten(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = flatten(e)
		}
		return strings.Join(parts, "; ")
	case map[string]any:
		keys := slices.Sorted(maps.Keys(v))
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + " " + flatten(v[k])
		}
		return strings.Join(parts, "; ")
	}
	return fmt.Sprint(v)
}
