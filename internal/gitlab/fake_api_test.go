package gitlab

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// route serves one authenticated request; f.mu is held.
func (f *fakeGitLab) route(w http.ResponseWriter, r *http.Request, seg []string, kind string) {
	if kind == "unknown" {
		writeJSON(w, 404, map[string]any{"error": "404 Not Found"})
		return
	}
	if !f.projectMatches(seg[1]) {
		writeJSON(w, 404, map[string]any{"message": "404 Project Not Found"})
		return
	}
	if r.Method != http.MethodGet && !f.writeScope {
		writeJSON(w, 403, map[string]any{"error": "insufficient_scope",
			"error_description": "The request requires higher privileges than provided by the access token.",
			"scope":             "api"})
		return
	}
	if kind == "project" {
		writeJSON(w, 200, map[string]any{"id": f.projectID, "path_with_namespace": f.projectPath,
			"web_url": f.srv.URL + "/" + f.projectPath})
		return
	}
	if kind == "mrs" {
		f.serveMRs(w, r)
		return
	}
	iid, _ := strconv.ParseInt(seg[3], 10, 64)
	mr := f.findMR(iid)
	if mr == nil {
		writeJSON(w, 404, map[string]any{"message": "404 Not found"})
		return
	}
	switch kind {
	case "mr":
		f.serveMR(w, r, mr)
	case "notes":
		f.serveNotes(w, r, iid)
	case "note":
		id, _ := strconv.ParseInt(seg[5], 10, 64)
		f.serveNote(w, r, iid, id)
	}
}

func (f *fakeGitLab) findMR(iid int64) *fakeMR {
	for _, m := range f.mrs {
		if m.IID == iid {
			return m
		}
	}
	return nil
}

// params reads a JSON body (what client-go sends) or a form.
func params(r *http.Request) map[string]string {
	out := map[string]string{}
	data, _ := io.ReadAll(r.Body)
	var raw map[string]any
	if json.Unmarshal(data, &raw) == nil {
		for k, v := range raw {
			if v != nil {
				out[k] = fmt.Sprint(v)
			}
		}
		return out
	}
	vals, _ := url.ParseQuery(string(data))
	for k := range vals {
		out[k] = vals.Get(k)
	}
	return out
}

func (f *fakeGitLab) serveNotes(w http.ResponseWriter, r *http.Request, iid int64) {
	if r.Method == http.MethodPost {
		body, ok := f.checkBody(w, r)
		if ok {
			writeJSON(w, 201, f.appendNote(iid, body, f.user, false))
		}
		return
	}
	notes := slices.Clone(f.notes[iid])
	q := r.URL.Query()
	field := func(n *fakeNote) time.Time { return n.CreatedAt }
	if q.Get("order_by") == "updated_at" {
		field = func(n *fakeNote) time.Time { return n.UpdatedAt }
	}
	slices.SortStableFunc(notes, func(a, b *fakeNote) int {
		return cmp.Or(field(a).Compare(field(b)), cmp.Compare(a.ID, b.ID))
	})
	if q.Get("sort") != "asc" { // GitLab's default is desc
		slices.Reverse(notes)
	}
	writePage(w, r, notes, f.maxPerPage)
}

// checkBody applies GitLab's note validations.
func (f *fakeGitLab) checkBody(w http.ResponseWriter, r *http.Request) (string, bool) {
	body, ok := params(r)["body"]
	switch {
	case !ok || body == "":
		writeJSON(w, 400, map[string]any{"message": "400 Bad request - body is missing"})
		return "", false
	case utf8.RuneCountInString(body) > NoteLimit:
		writeJSON(w, 400, map[string]any{"message": map[string]any{
			"note": []string{"is too long (maximum is 1000000 characters)"}}})
		return "", false
	}
	return body, true
}

func (f *fakeGitLab) serveNote(w http.ResponseWriter, r *http.Request, iid, id int64) {
	notes := f.notes[iid]
	i := slices.IndexFunc(notes, func(n *fakeNote) bool { return n.ID == id })
	if i < 0 {
		writeJSON(w, 404, map[string]any{"message": "404 Not found"})
		return
	}
	switch r.Method {
	case http.MethodDelete:
		f.notes[iid] = slices.Delete(notes, i, i+1)
		w.WriteHeader(204)
	case http.MethodPut:
		body, ok := f.checkBody(w, r)
		if !ok {
			return
		}
		f.now = f.now.Add(time.Second)
		notes[i].Body, notes[i].UpdatedAt = body, f.now
		writeJSON(w, 200, notes[i])
	default:
		writeJSON(w, 200, notes[i])
	}
}

// writePage writes one page of items with GitLab's offset pagination
// headers (per_page defaults to 20 and is capped).
func writePage[T any](w http.ResponseWriter, r *http.Request, items []T, maxPerPage int) {
	q := r.URL.Query()
	page, _ := strconv.Atoi(q.Get("page"))
	page = max(page, 1)
	per, _ := strconv.Atoi(q.Get("per_page"))
	if per <= 0 {
		per = 20
	}
	per = min(per, 100, maxPerPage)
	total := len(items)
	pages := max((total+per-1)/per, 1)
	lo, hi := min((page-1)*per, total), min(page*per, total)
	h := w.Header()
	h.Set("X-Page", strconv.Itoa(page))
	h.Set("X-Per-Page", strconv.Itoa(per))
	h.Set("X-Total", strconv.Itoa(total))
	h.Set("X-Total-Pages", strconv.Itoa(pages))
	h.Set("X-Next-Page", "")
	h.Set("X-Prev-Page", "")
	link := func(p int, rel string) string {
		u := *r.URL
		v := u.Query()
		v.Set("page", strconv.Itoa(p))
		v.Set("per_page", strconv.Itoa(per))
		u.RawQuery = v.Encode()
		return fmt.Sprintf(`<http://%s%s>; rel="%s"`, r.Host, u.RequestURI(), rel)
	}
	var links []string
	if page < pages {
		h.Set("X-Next-Page", strconv.Itoa(page+1))
		links = append(links, link(page+1, "next"))
	}
	if page > 1 {
		h.Set("X-Prev-Page", strconv.Itoa(page-1))
		links = append(links, link(page-1, "prev"))
	}
	links = append(links, link(1, "first"), link(pages, "last"))
	h.Set("Link", strings.Join(links, ", "))
	writeJSON(w, 200, items[lo:hi])
}
