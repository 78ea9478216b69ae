package ui

import (
	"io"
	"io/fs"
	"net/http"
	"path"
	"regexp"
	"strings"
	"testing"
)

// TestModulesServed follows the page's script from index.html through
// every import: each module is embedded, served without the token (a
// browser fetches an imported module with no Authorization header), as
// JavaScript (a browser refuses a module of another type), and imports only
// the page's own files
// by a relative path. A module added under assets/ and imported is served
// with nothing else to change; a typo in an import fails here, not only in
// the browser test.
func TestModulesServed(t *testing.T) {
	pg := newPage(t)
	html, _ := fs.ReadFile(assets, "assets/index.html")
	entry := regexp.MustCompile(`<script type="module" src="(/[^"]+\.js)"></script>`).FindSubmatch(html)
	if entry == nil {
		t.Fatal(`index.html has no <script type="module" src="/....js">: the page's script is a module`)
	}
	importRE := regexp.MustCompile(`(?m)^import \{[^}]*\} from '([^']+)';$`)
	seen := map[string]bool{}
	queue := []string{string(entry[1])}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if seen[p] {
			continue
		}
		seen[p] = true
		req, _ := http.NewRequest(http.MethodGet, pg.base+p, nil) // no token, as a browser
		resp := pg.do(req)
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s = %d, want 200", p, resp.StatusCode)
			continue
		}
		if ct := resp.Header.Get("Content-Type"); !strings.Contains(ct, "javascript") {
			t.Errorf("GET %s: Content-Type %q: a browser runs a module only as JavaScript", p, ct)
		}
		for _, m := range importRE.FindAllSubmatch(body, -1) {
			rel := string(m[1])
			if !strings.HasPrefix(rel, "./") && !strings.HasPrefix(rel, "../") {
				t.Errorf("%s imports %q: only the page's own files, by a relative path", p, rel)
				continue
			}
			queue = append(queue, path.Join(path.Dir(p), rel))
		}
	}
	// Every script embedded is reached from the entry: none is dead weight.
	for _, f := range pageFiles() {
		if strings.HasSuffix(f, ".js") && !seen[f] {
			t.Errorf("%s is embedded but no module imports it", f)
		}
	}
	if len(seen) < 2 {
		t.Errorf("modules reached from the entry: %v; want the entry and its views", seen)
	}
}
