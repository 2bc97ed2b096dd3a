package scrub

import (
	"strings"
)

// URL returns raw with its userinfo replaced by Mask. It does not parse
// raw: a password holding '/', '#', '?' or a space makes URL parsers fail
// (and quote the whole URL in their error), so everything between "://"
// and the last '@' is taken as userinfo. For a string without a scheme
// ("user:pass@host/path", scp-like "git@host:path"), a part before the
// last '@' is hidden only when it holds a ':' (a user name alone, like
// git's, is not a secret).
func URL(raw string) string {
	if i := strings.Index(raw, "://"); i >= 0 {
		rest := raw[i+3:]
		at := strings.LastIndex(rest, "@")
		if at < 0 {
			return raw
		}
		return raw[:i+3] + Mask + "@" + rest[at+1:]
	}
	at := strings.LastIndex(raw, "@")
	if at < 0 || !strings.Contains(raw[:at], ":") {
		return raw
	}
	return Mask + "@" + raw[at+1:]
}

// userinfo splits the userinfo of raw the way URL finds it.
func userinfo(raw string) (user, pass string, ok bool) {
	var ui string
	if i := strings.Index(raw, "://"); i >= 0 {
		rest := raw[i+3:]
		at := strings.LastIndex(rest, "@")
		if at <= 0 {
			return "", "", false
		}
		ui = rest[:at]
	} else {
		at := strings.LastIndex(raw, "@")
		if at <= 0 || !strings.Contains(raw[:at], ":") {
			return "", "", false
		}
		ui = raw[:at]
	}
	user, pass, _ = strings.Cut(ui, ":")
	return user, pass, true
}

// URLs masks the userinfo of every URL in text: an '@' in the authority,
// between "scheme://" and the next '/', space or quote. In running text
// that is as far as a URL can be told apart ("file:///repo.git@abc123:dir"
// names a commit, and a path may hold '@'), so a password holding '/' or a
// space is found only when the URL is registered with AddURL.
func URLs(text string) string { return apply(text, userinfoSpans(text)) }

func userinfoSpans(text string) []span {
	var out []span
	for off := 0; ; {
		i := strings.Index(text[off:], "://")
		if i < 0 {
			return out
		}
		start := off + i + 3
		end := start
		for end < len(text) && !strings.ContainsRune("/ \t\r\n\"'`<>", rune(text[end])) {
			end++
		}
		if at := strings.LastIndex(text[start:end], "@"); at > 0 {
			out = append(out, span{start, start + at})
		}
		off = start
	}
}
